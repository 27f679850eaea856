package io.tollgate.rules.store;

import java.util.ArrayList;
import java.util.List;

import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleSet;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;

/** Rows to values; rule bodies go through the same codec as every rule the API accepts. */
final class Rows {

    private final RuleCodec codec;

    Rows(RuleCodec codec) {
        this.codec = codec;
    }

    StoredRule toStored(Row row) {
        return new StoredRule(codec.parseRule(row.getString("body")), row.getLong("version"));
    }

    /** Rows of {@code set_version} and {@code body} (null when there is no rule at all). */
    RuleSet toRuleSet(RowSet<Row> rows) {
        long version = 0;
        List<Rule> rules = new ArrayList<>();
        for (Row row : rows) {
            version = row.getLong("set_version");
            String body = row.getString("body");
            if (body != null) {
                rules.add(codec.parseRule(body));
            }
        }
        return new RuleSet(version, rules);
    }

    List<Revision> toRevisions(RowSet<Row> rows) {
        List<Revision> out = new ArrayList<>();
        for (Row row : rows) {
            out.add(new Revision(row.getLong("version"), row.getString("rule_id"),
                    Operation.fromWireName(row.getString("operation")), row.getString("actor"),
                    row.getOffsetDateTime("at").toInstant(), codec.parseRule(row.getString("body"))));
        }
        return out;
    }
}
