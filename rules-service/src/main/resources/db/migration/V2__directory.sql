-- The client directory: tenants and clients (API keys, by the SHA-256 of the key: never the key itself).
-- Names (ids, digests) are ASCII compared byte by byte: COLLATE "C" keeps their indexes cheap to fill, which a
-- bulk import of a million clients needs.

-- The directory's sequence: one row, raised by one for EVERY directory change (a tenant or client put or
-- deleted, each changed line of a bulk import). Every directory write locks this row first, so writers queue
-- and commit in seq order: a reader that has seen seq N never later finds a committed change below N.
CREATE TABLE directory_seq (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    seq       bigint  NOT NULL CHECK (seq >= 0)
);
INSERT INTO directory_seq (singleton, seq) VALUES (true, 0);

-- One row per tenant ever written; seq is the change that last touched it (its ETag). A deleted tenant keeps
-- its row with body null (a tombstone), so gateways reading the changes after a seq learn of the delete.
CREATE TABLE tenants (
    id         text        COLLATE "C" PRIMARY KEY,
    body       jsonb,
    seq        bigint      NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text        NOT NULL
);
CREATE INDEX tenants_by_seq ON tenants (seq);

-- One row per client ever written, by digest (64 lowercase hex digits, written by the service only: the length
-- check is the cheap guard, a pattern check costs a bulk import seconds); tombstones as for tenants. The tenant
-- column follows the body, for listing a tenant's clients and refusing to delete a tenant that has some.
CREATE TABLE clients (
    digest     text        COLLATE "C" PRIMARY KEY CHECK (octet_length(digest) = 64),
    body       jsonb,
    tenant     text        COLLATE "C" GENERATED ALWAYS AS (body ->> 'tenant') STORED,
    seq        bigint      NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text        NOT NULL
);
CREATE INDEX clients_by_seq ON clients (seq);
CREATE INDEX clients_by_tenant ON clients (tenant, digest) WHERE body IS NOT NULL;

-- Every directory change, never updated nor deleted: the history of tenants and clients (who, when, what).
-- One seq is one change of one entry; name is the tenant's id or the client's digest. The history is looked up
-- by name only (a hash index: small, and cheap to fill in any order).
CREATE TABLE directory_revisions (
    seq       bigint      PRIMARY KEY,
    kind      text        NOT NULL CHECK (kind IN ('tenant', 'client')),
    name      text        COLLATE "C" NOT NULL,
    operation text        NOT NULL CHECK (operation IN ('create', 'replace', 'delete')),
    actor     text        NOT NULL,
    at        timestamptz NOT NULL,
    body      jsonb       NOT NULL -- the entry after the change; for a delete, the entry as it was
);
CREATE INDEX directory_revisions_by_name ON directory_revisions USING hash (name);
