package io.tollgate.gateway.admin;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.quarkus.vertx.http.ManagementInterface;
import io.tollgate.gateway.http.Problems;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.Limiter;
import io.tollgate.gateway.limiter.targets.Target;
import io.tollgate.gateway.rules.RuleBook;
import io.tollgate.gateway.store.CounterStore;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code DELETE /tollgate/buckets?rule=<id>} with the client's key where the rule counts it: the API key in the
 * header the gateway counts it by ({@code X-API-Key}), a {@code header:} key in its own header, {@code ip=} in the
 * query: resets that client's bucket of the rule, the one a request of the client counts in (its
 * tenant's hash tag included), so its next request finds it full. This gateway forgets the rejections it
 * remembers of that bucket at once; another gateway that remembers one answers 429 from memory until the retry
 * time the store gave it, then finds the bucket full. 204 when there was a bucket, 404 when there
 * was none or the rule is not in force, 400 naming a missing parameter. Every reset is logged with the actor, the
 * rule and the bucket's key, which carries a secret client key (an API key, a header's value) only as its digest;
 * the log line's time is when.
 */
@ApplicationScoped
class BucketsRoute {

    private static final Logger LOG = Logger.getLogger(BucketsRoute.class);

    private final AdminGuard guard;
    private final RuleBook rules;
    private final KeyResolver keys;
    private final Limiter limiter;
    private final CounterStore store;

    BucketsRoute(RuleBook rules, KeyResolver keys, Limiter limiter, CounterStore store, AdminGuard guard) {
        this.guard = guard;
        this.rules = rules;
        this.keys = keys;
        this.limiter = limiter;
        this.store = store;
    }

    void register(@Observes ManagementInterface management) {
        guard.operation(management.router().delete("/tollgate/buckets"), Scope.ADMIN, this::reset);
    }

    private void reset(RoutingContext ctx) {
        JsonArray errors = new JsonArray();
        String ruleId = ctx.queryParams().get("rule");
        if (ruleId == null || ruleId.isEmpty()) {
            errors.add(DescribedRequest.error("rule", ruleId, "required: the id of a rule"));
        }
        DescribedRequest request = DescribedRequest.read(ctx.queryParams(), ctx.request().headers(), keys, false, errors);
        if (!errors.isEmpty()) {
            DescribedRequest.refuse(ctx, errors);
            return;
        }
        Optional<Rule> found = rules.rule(ruleId);
        if (found.isEmpty()) {
            Problems.send(ctx.response(), Problems.problem("unknown-rule", "Not Found", 404,
                    "no rule \"" + ruleId + "\" in the rule set in force"));
            return;
        }
        Rule rule = found.get();
        Optional<String> client = request.clientKey(keys, rule.key());
        if (client.isEmpty()) {
            String param = DescribedRequest.parameterFor(keys, rule.key());
            DescribedRequest.refuse(ctx, new JsonArray().add(DescribedRequest.error(param, null,
                    "required: rule \"" + rule.id() + "\" counts by " + rule.key().wire())));
            return;
        }
        String actor = ctx.get(AdminGuard.ACTOR);
        Target target = limiter.target(rule, client.get());
        store.reset(target.bucket()).onComplete(done -> {
            if (done.failed()) {
                Problems.send(ctx.response(), Problems.problem("store-unavailable", "Service Unavailable", 503,
                        "the counter store did not answer; nothing was reset: " + done.cause().getMessage()));
                return;
            }
            limiter.forgetRejection(target.bucket());
            if (!done.result()) {
                Problems.send(ctx.response(), Problems.problem("no-bucket", "Not Found", 404,
                        "rule \"" + rule.id() + "\" holds no bucket for that client: nothing to reset"));
                return;
            }
            LOG.infof("bucket %s of rule %s reset by %s", target.bucket().key(), rule.id(), actor);
            ctx.response().setStatusCode(204).end();
        });
    }
}
