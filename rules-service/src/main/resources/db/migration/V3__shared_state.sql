-- What every rules-service instance must see alike, so that any number of them, behind any balancer, act as
-- one. Rows expire by time (the columns below), never by the instance that wrote them.

-- Console sessions, found by the SHA-256 of the id the cookie carries: a read of this table gives no cookie.
-- The CSRF token is kept as it is, since every page of the session shows it; without the cookie it is worth
-- nothing. A session ends idle-timeout after used_at or max-age after opened_at.
CREATE TABLE console_sessions (
    id_digest  bytea       PRIMARY KEY CHECK (octet_length(id_digest) = 32),
    actor      text        NOT NULL,
    csrf_token text        NOT NULL,
    opened_at  timestamptz NOT NULL,
    used_at    timestamptz NOT NULL
);
CREATE INDEX console_sessions_by_use ON console_sessions (used_at);

-- The gateways that polled with a valid token, one row each: live while last_seen is within the live window,
-- deleted once silent past forget-after or when the table is full and it is the longest silent. admin_url is
-- the management address it reported, kept only when its host passed the address rule; token_digest is the
-- SHA-256 of the bearer token of that poll, which an instance matches against the tokens it is configured with
-- to call the gateway (the token itself never reaches the database); source is the address the poll came from.
CREATE TABLE gateways (
    id            text        COLLATE "C" PRIMARY KEY,
    last_seen     timestamptz NOT NULL,
    rules_version bigint      NOT NULL DEFAULT -1,
    admin_url     text,
    token_digest  bytea,
    source        text        NOT NULL
);
CREATE INDEX gateways_by_last_seen ON gateways (last_seen);
