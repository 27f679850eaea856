package io.tollgate.rules.live;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Questions asked of the live gateways' operations for the API: {@code top} of every gateway, merged, and
 * {@code explain} of one that answers.
 */
@ApplicationScoped
public class FleetQueries {

    private static final Logger LOG = Logger.getLogger(FleetQueries.class);

    /** The fleet's most rejected clients of a rule. */
    public record Top(String rule, List<TopClient> clients) {
    }

    /** One client: its digest, the directory's label (or null), its rejections over the fleet. */
    public record TopClient(String client, String label, long rejections) {
    }

    /**
     * One gateway's answer to explain, as it gave it.
     *
     * @param gateway
     * the id of the gateway that answered
     */
    public record Explained(String gateway, int status, String contentType, String body) {
    }

    private final GatewayRegistry registry;
    private final GatewayCalls calls;
    private final LiveSampler sampler;

    FleetQueries(GatewayRegistry registry, GatewayCalls calls, LiveSampler sampler) {
        this.registry = registry;
        this.calls = calls;
        this.sampler = sampler;
    }

    /**
     * Every live gateway's {@code /tollgate/top} of {@code rule}, asked at once and merged; a gateway that does not
     * answer 200 (down, or without the rule) adds nothing.
     */
    public Future<Top> top(String rule, int n) {
        return addressed().compose(gateways -> top(gateways, rule, n));
    }

    private Future<Top> top(List<GatewayRegistry.Gateway> gateways, String rule, int n) {
        String query = "/tollgate/top?rule=" + encode(rule) + "&n=" + n;
        List<Future<JsonObject>> answers = new ArrayList<>();
        for (GatewayRegistry.Gateway gateway : gateways) {
            answers.add(calls.get(gateway, query).map(answer -> answer.status() == 200
                    ? answer.body().toJsonObject()
                    : null));
        }
        return Future.join(answers).transform(done -> {
            List<JsonObject> answered = answers.stream()
                    .filter(Future::succeeded)
                    .map(Future::result)
                    .filter(answer -> answer != null)
                    .toList();
            return Future.succeededFuture(new Top(rule, TopMerge.merge(answered, n)));
        });
    }

    /**
     * {@code /tollgate/explain?<query>}, with {@code headers} (the described request's, a client key among them),
     * of the first live gateway that answers (those reachable at the last read first); empty when none does. A
     * gateway that refuses this service's token counts as not answering.
     */
    public Future<Optional<Explained>> explain(String query, Map<String, String> headers) {
        return addressed().compose(gateways -> explain(reachable(gateways), 0, "/tollgate/explain?" + query,
                headers));
    }

    private Future<Optional<Explained>> explain(List<GatewayRegistry.Gateway> gateways, int index, String path,
            Map<String, String> headers) {
        if (index >= gateways.size()) {
            return Future.succeededFuture(Optional.empty());
        }
        GatewayRegistry.Gateway gateway = gateways.get(index);
        return calls.get(gateway, path, headers).transform(done -> {
            if (done.succeeded() && done.result().status() != 401 && done.result().status() != 403) {
                GatewayCalls.Answer answer = done.result();
                return Future.succeededFuture(Optional.of(new Explained(gateway.id(), answer.status(),
                        answer.contentType(), answer.body().toString())));
            }
            LOG.debugf("explain: gateway %s did not answer (%s)", gateway.id(),
                    done.failed() ? done.cause().toString() : "status " + done.result().status());
            return explain(gateways, index + 1, path, headers);
        });
    }

    /** The live gateways with a management address, those reachable at the last read first. */
    private List<GatewayRegistry.Gateway> reachable(List<GatewayRegistry.Gateway> addressed) {
        return addressed.stream()
                .sorted(Comparator.comparing((GatewayRegistry.Gateway g) -> !sampler.health(g.id()).reachable()))
                .toList();
    }

    private Future<List<GatewayRegistry.Gateway>> addressed() {
        return Future.fromCompletionStage(registry.addressed().subscribeAsCompletionStage());
    }

    /** {@code value} for a query string. */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
