package io.tollgate.gateway.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.counter.Peek;
import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.Limiter;
import io.tollgate.gateway.limiter.targets.Target;
import io.tollgate.gateway.rules.RuleBook;
import io.tollgate.gateway.store.CounterStore;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.Periods;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /tollgate/explain?method=POST&path=/orders/1} (also {@code ip=}), with the client's API key in the
 * header the gateway counts it by ({@code X-API-Key}) and a {@code header:} key in its own header: what each rule in force that
 * matches the request would do with it now, spending nothing. Per rule its
 * effective policy and where it comes from ({@code rule}, {@code plan:<name>}, {@code override}), the counter
 * key (an API key or a header's value in it only as its digest: the answer never repeats a secret), and what the
 * bucket holds ({@code remaining} whole units, {@code reset_ms} until full) as the store says now (a bucket in debt
 * holds a negative {@code remaining}, and {@code owed} says how much); a rule whose client key the request lacks
 * says which header (or {@code ip} parameter) would give it. The same key resolver, directory and key builder as a check: what
 * explain
 * shows is what a request meets.
 */
@ApplicationScoped
class ExplainRoute {

    private static final Logger LOG = Logger.getLogger(ExplainRoute.class);

    private final AdminGuard guard;
    private final RuleBook rules;
    private final KeyResolver keys;
    private final Limiter limiter;
    private final CounterStore store;

    ExplainRoute(RuleBook rules, KeyResolver keys, Limiter limiter, CounterStore store, AdminGuard guard) {
        this.guard = guard;
        this.rules = rules;
        this.keys = keys;
        this.limiter = limiter;
        this.store = store;
    }

    void register(@Observes ManagementInterface management) {
        guard.operation(management.router().get("/tollgate/explain"), Scope.READ, this::answer);
    }

    private void answer(RoutingContext ctx) {
        JsonArray errors = new JsonArray();
        DescribedRequest request = DescribedRequest.read(ctx.queryParams(), ctx.request().headers(), keys, true, errors);
        if (request == null) {
            DescribedRequest.refuse(ctx, errors);
            return;
        }
        List<Future<JsonObject>> explained = new ArrayList<>();
        for (Rule rule : rules.match(request.method, request.path)) {
            explained.add(explain(rule, request));
        }
        Future.all(explained).onComplete(all -> {
            if (all.failed()) {
                LOG.debugf("explain: the counter store did not answer: %s", all.cause().toString());
                Problems.send(ctx.response(), Problems.problem("store-unavailable", "Service Unavailable", 503,
                        "the counter store did not answer: " + all.cause().getMessage()));
                return;
            }
            JsonArray out = new JsonArray();
            explained.forEach(f -> out.add(f.result()));
            ctx.response()
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                    .end(new JsonObject()
                            .put("method", request.method)
                            .put("path", request.path)
                            .put("rules_version", rules.version())
                            .put("rules", out)
                            .encode());
        });
    }

    private Future<JsonObject> explain(Rule rule, DescribedRequest request) {
        JsonObject out = new JsonObject()
                .put("id", rule.id())
                .put("key_type", rule.key().wire())
                .put("shadow", rule.shadow());
        Optional<String> client = request.clientKey(keys, rule.key());
        if (client.isEmpty()) {
            return Future.succeededFuture(out
                    .put("missing", DescribedRequest.parameterFor(keys, rule.key()))
                    .put("missing_key", rule.missingKey().wireName()));
        }
        Target target = limiter.target(rule, client.get());
        Effective policy = target.effective();
        out.put("policy", new JsonObject()
                .put("algorithm", rule.algorithm().wireName())
                .put("limit", policy.limit())
                .put("period", Periods.format(policy.period()))
                .put("burst", policy.burst())
                .put("cost", rule.cost()))
                .put("source", policy.source())
                .put("key", target.bucket().key());
        if (policy.blocks()) {
            return Future.succeededFuture(out.put("stored", false).put("remaining", 0L)
                    .put("reset_ms", policy.period().toMillis()).put("blocked", true));
        }
        return store.peek(target.bucket()).map(peek -> held(out, peek));
    }

    private static JsonObject held(JsonObject out, Peek peek) {
        out.put("stored", peek.exists()).put("remaining", peek.remaining()).put("reset_ms", peek.resetMs());
        return peek.remaining() < 0 ? out.put("owed", -peek.remaining()) : out;
    }
}
