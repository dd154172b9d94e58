-- A session bound to a device's key (DPoP, RFC 9449; DESIGN.md section 9.2): the RFC 7638
-- thumbprint of the key, whose proofs its refreshes and access tokens need. Null: an unbound
-- (bearer) session, as every session before this migration.
ALTER TABLE tokens.sessions ADD COLUMN dpop_jkt text;
