-- Guest accounts (DESIGN.md section 9.1): a user with no provider identity yet, made by
-- `identity.createGuest`. Linking or signing in with an identity upgrades it (is_guest false).
ALTER TABLE identity.users ADD COLUMN is_guest boolean NOT NULL DEFAULT false;

-- The guest reaper and the admin filter look guests up by age.
CREATE INDEX users_guests_idx ON identity.users (created_at, id) WHERE is_guest;
