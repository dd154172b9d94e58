/// Placeholder until the identity issue builds the mock provider.
enum MockIdentityProviderPlaceholder {}
