"""openapi.yaml as the JSON the gateway serves at GET /openapi.json.

The gateway embeds Services/gateway/Sources/Gateway/Resources/openapi.json in its executable
(SwiftPM embedInCode), so the document travels with the binary into the image.
  python3 scripts/lib/openapi_json.py write   # after editing openapi.yaml
  python3 scripts/lib/openapi_json.py check   # CI: fails when the JSON is not the YAML's
Needs PyYAML (scripts/lib/api_checks.sh installs it into its virtual environment).
"""
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "openapi.yaml"
TARGET = ROOT / "Services/gateway/Sources/Gateway/Resources/openapi.json"


def rendered() -> str:
    document = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    text = rendered()
    if sys.argv[1] == "write":
        TARGET.write_text(text, encoding="utf-8")
        return 0
    if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
        print(f"openapi: {TARGET.relative_to(ROOT)} is not openapi.yaml's JSON; run python3 scripts/lib/openapi_json.py write",
              file=sys.stderr)
        return 1
    print("openapi: openapi.json matches openapi.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
