package io.tollgate.gateway.admin;

import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.rules.RuleBook;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /tollgate/top?rule=<id>&n=20}: the clients this gateway rejected most under one rule over the last
 * minutes, heaviest first: {@code {"rule", "window_ms", "clients": [{"digest", "label", "rejected", "error"}]}}.
 * {@code rejected} may overcount by at most {@code error} (the sketch's bound); {@code window_ms} is how far back
 * the counts go. A rule not in the set in force: 404; a missing rule or an {@code n} outside 1 to the sketch's
 * capacity: 400 naming each.
 */
@ApplicationScoped
class TopRoute {

    private static final int DEFAULT_N = 20;

    private final AdminGuard guard;
    private final TopClients top;
    private final ClientLabels labels;
    private final RuleBook rules;

    TopRoute(TopClients top, ClientLabels labels, RuleBook rules, AdminGuard guard) {
        this.guard = guard;
        this.top = top;
        this.labels = labels;
        this.rules = rules;
    }

    void register(@Observes ManagementInterface management) {
        guard.operation(management.router().get("/tollgate/top"), Scope.READ, this::answer);
    }

    private void answer(RoutingContext ctx) {
        String rule = ctx.request().getParam("rule");
        String nParam = ctx.request().getParam("n");
        Integer n = count(nParam);
        JsonArray errors = new JsonArray();
        if (rule == null || rule.isEmpty()) {
            errors.add(DescribedRequest.error("rule", rule, "required: the id of a rule"));
        }
        if (n == null) {
            errors.add(DescribedRequest.error("n", nParam, "must be a whole number from 1 to " + top.capacity()));
        }
        if (!errors.isEmpty()) {
            DescribedRequest.refuse(ctx, errors);
        } else if (rules.rule(rule).isEmpty()) {
            Problems.send(ctx.response(), Problems.problem("unknown-rule", "Not Found", 404,
                    "no rule \"" + rule + "\" in the rule set in force"));
        } else {
            RejectionWindow.Top heaviest = top.top(rule, n);
            List<String> digests = heaviest.entries().stream().map(SpaceSaving.Entry::key).toList();
            labels.labels(digests).onComplete(named -> ctx.response()
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                    .end(body(rule, heaviest, named.result()).encode()));
        }
    }

    private static JsonObject body(String rule, RejectionWindow.Top heaviest, Map<String, String> labels) {
        JsonArray clients = new JsonArray();
        for (SpaceSaving.Entry e : heaviest.entries()) {
            clients.add(new JsonObject()
                    .put("digest", e.key())
                    .put("label", labels.get(e.key()))
                    .put("rejected", e.count())
                    .put("error", e.error()));
        }
        return new JsonObject()
                .put("rule", rule)
                .put("window_ms", heaviest.coversNanos() / 1_000_000)
                .put("clients", clients);
    }

    /** {@code n} as asked (absent: the default), or null when it is not a count the sketch can answer. */
    private Integer count(String n) {
        if (n == null) {
            return DEFAULT_N;
        }
        try {
            int value = Integer.parseInt(n.trim());
            return value >= 1 && value <= top.capacity() ? value : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
