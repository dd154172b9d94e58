# shellcheck shell=bash
# scripts/test's checks of the Kubernetes manifests (deploy/kubernetes): renders the base and
# every overlay without the kustomize binary (scripts/lib/kustomize_render.py; compared with
# `kubectl kustomize` when kubectl is installed), validates them with kubernetes-validate
# --strict for a current Kubernetes, and checks what schemas cannot (env names the Swift sources
# read, Secrets docs/deploy.md creates, selectors, security contexts, probes, headless
# endpoints): scripts/lib/kubernetes_checks.py. Needs no cluster; a few seconds after the
# pip install. Sourced by scripts/test.

# Pinned PyPI packages; kubernetes-validate 1.37.0 has schemas up to Kubernetes 1.37.
kubernetes_check_packages=(kubernetes-validate==1.37.0 PyYAML==6.0.4)

# run_kubernetes_checks WORK: the venv in WORK/kubernetes-venv, the rendered manifests in
# WORK/kubernetes. Non-zero on any failure. Runs in a subshell so its settings stay its own.
run_kubernetes_checks() (
  set -euo pipefail
  local work=$1 venv=$1/kubernetes-venv
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${kubernetes_check_packages[@]}"
  "$venv/bin/python" scripts/lib/kubernetes_checks.py "$work/kubernetes"
)
