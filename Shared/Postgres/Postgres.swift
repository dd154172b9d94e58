/// Placeholder until the pool lands.
enum PostgresPlaceholder {}
