-- The global version: one row, raised by exactly one in the transaction of every committed change.
-- Every write locks this row first, so writes are serialised and commit in version order.
CREATE TABLE rules_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version   bigint  NOT NULL CHECK (version >= 0)
);
INSERT INTO rules_version (singleton, version) VALUES (true, 0);

-- The current rules, one row each; version is the global version at which the rule last changed (its ETag).
CREATE TABLE rules (
    id         text        PRIMARY KEY,
    body       jsonb       NOT NULL,
    version    bigint      NOT NULL,
    updated_at timestamptz NOT NULL,
    updated_by text        NOT NULL
);

-- Every revision, never updated nor deleted: the history, and what the watch stream replays.
-- One version may hold several revisions (a declarative import changes many rules at once).
CREATE TABLE rule_revisions (
    version   bigint      NOT NULL,
    rule_id   text        NOT NULL,
    operation text        NOT NULL CHECK (operation IN ('create', 'replace', 'delete')),
    actor     text        NOT NULL,
    at        timestamptz NOT NULL,
    body      jsonb       NOT NULL, -- the rule after the change; for a delete, the rule as it was
    PRIMARY KEY (version, rule_id)
);
CREATE INDEX rule_revisions_by_rule ON rule_revisions (rule_id, version);
