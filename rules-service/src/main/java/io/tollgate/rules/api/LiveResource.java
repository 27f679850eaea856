package io.tollgate.rules.api;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.AccessCheck;
import io.tollgate.rules.auth.Needs;
import io.tollgate.rules.domain.FieldError;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Paging;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemException;
import io.tollgate.rules.live.DecisionWindow;
import io.tollgate.rules.live.FleetQueries;
import io.tollgate.rules.live.GatewayRegistry;
import io.tollgate.rules.live.LiveSampler;
import io.vertx.core.json.JsonObject;

/**
 * The fleet as it runs, for operators and the console (docs/management.md, "The rules service's live view"): the
 * gateways of the shared registry, the decisions per rule over the last minutes, the most rejected clients of a
 * rule, and what each rule would do with a request now. Reads only, each for a {@code read} token or better.
 */
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
@Needs(Scope.READ)
public class LiveResource {

    /** The most clients {@code top} names: the gateways' sketch holds as many per rule by default. */
    static final int MAX_TOP = 256;
    private static final int DEFAULT_TOP = 20;

    /** One gateway as {@code /api/v1/gateways} lists it. */
    record KnownGateway(String id, @JsonProperty("rules_version") Long rulesVersion,
            @JsonProperty("last_seen") String lastSeen, boolean live, @JsonProperty("admin_url") String adminUrl) {
    }

    /** One live gateway as {@code /api/v1/live} shows it. */
    record LiveGateway(String id, @JsonProperty("rules_version") Long rulesVersion,
            @JsonProperty("last_seen") String lastSeen, boolean reachable, Boolean ready, String store,
            String breaker) {
    }

    record Live(@JsonProperty("sampled_at") Long sampledAt, @JsonProperty("step_ms") long stepMs,
            List<LiveGateway> gateways, List<DecisionWindow.RuleSeries> rules) {
    }

    /** Headers of a call to this service that describe nothing: its credentials, session and connection. */
    private static final Set<String> NOT_DESCRIBED = Set.of("authorization", "cookie", "x-csrf-token", "host",
            "connection", "keep-alive", "content-length", "content-type", "transfer-encoding", "accept",
            "accept-encoding", "accept-language", "user-agent", "origin", "referer", "te", "upgrade",
            "tollgate-gateway", "tollgate-gateway-admin", "forwarded", "x-forwarded-for", "x-forwarded-host",
            "x-forwarded-proto", "x-real-ip", "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest", "cache-control",
            "pragma", "if-none-match", "if-modified-since", "dnt");

    private final GatewayRegistry registry;
    private final LiveSampler sampler;
    private final FleetQueries fleet;

    LiveResource(GatewayRegistry registry, LiveSampler sampler, FleetQueries fleet) {
        this.registry = registry;
        this.sampler = sampler;
        this.fleet = fleet;
    }

    @GET
    @Path("gateways")
    @Operation(summary = "The gateways that call this service: rules version held, last seen, live, management URL")
    public Uni<Map<String, List<KnownGateway>>> gateways() {
        return registry.all().map(all -> Map.of("gateways", all.stream()
                .map(g -> new KnownGateway(g.id(), version(g), at(g.lastSeenMs()), registry.isLive(g), g.adminUrl()))
                .toList()));
    }

    @GET
    @Path("live")
    @Operation(summary = "Live gateways' health and the decisions per rule over the last minutes, summed over them")
    public Uni<Live> live() {
        return registry.all().map(all -> {
            long sampledAt = sampler.sampledAtMs();
            List<LiveGateway> gateways = all.stream()
                    .filter(registry::isLive)
                    .map(g -> {
                        LiveSampler.Health health = sampler.health(g.id());
                        return new LiveGateway(g.id(), version(g), at(g.lastSeenMs()), health.reachable(),
                                health.ready(), health.store(), health.breaker());
                    })
                    .toList();
            return new Live(sampledAt < 0 ? null : sampledAt, sampler.stepMs(), gateways, sampler.series());
        });
    }

    @GET
    @Path("top")
    @Operation(summary = "The clients rejected most under a rule lately, over every live gateway")
    public Uni<FleetQueries.Top> top(@QueryParam("rule") String rule, @QueryParam("n") String n) {
        if (rule == null || rule.isBlank()) {
            throw new ProblemException(new Problem("bad-request", "Bad query parameter", 400,
                    "rule is required: the id of a rule", List.of(new FieldError("rule", rule, "is required"))));
        }
        int count = Paging.limit("n", n, DEFAULT_TOP, MAX_TOP);
        return Uni.createFrom().completionStage(() -> fleet.top(rule, count).toCompletionStage());
    }

    @GET
    @Path("explain")
    @Operation(summary = "What each rule would do with a request now, without spending: one live gateway's explain; "
            + "the client's API key (and any header a rule counts by) in the headers, as the client sends them")
    public Uni<Response> explain(@Context UriInfo uri, @Context HttpHeaders headers) {
        String query = explainQuery(uri);
        Map<String, String> described = describedHeaders(headers);
        return Uni.createFrom().completionStage(() -> fleet.explain(query, described).toCompletionStage())
                .map(answered -> answered.map(LiveResource::explained).orElseThrow(() -> new ProblemException(
                        new Problem("no-gateway", "No gateway reachable", 503,
                                "no live gateway with a known management address answered"))));
    }

    /** The gateway's answer as it gave it; a 200 names the gateway too. */
    private static Response explained(FleetQueries.Explained answer) {
        if (answer.status() != 200) {
            return Response.status(answer.status()).type(answer.contentType()).entity(answer.body()).build();
        }
        JsonObject body = new JsonObject(answer.body()).put("gateway", answer.gateway());
        return Response.ok(body.encode(), MediaType.APPLICATION_JSON).build();
    }

    /**
     * The parameters explain reads, and only those, for the gateway's query string (a client key in the query never
     * gets here: {@link AccessCheck} refuses it on every endpoint).
     */
    private static String explainQuery(UriInfo uri) {
        StringJoiner query = new StringJoiner("&");
        uri.getQueryParameters().forEach((name, values) -> {
            if (name.equals("method") || name.equals("path") || name.equals("ip")) {
                values.forEach(v -> query.add(FleetQueries.encode(name) + "=" + FleetQueries.encode(v)));
            }
        });
        return query.toString();
    }

    /**
     * The headers of the described request: every header of this one but this service's own (the caller's
     * credentials, the session, the connection's), so that the gateway reads a client key from the header it counts
     * it by, as from a request.
     */
    private static Map<String, String> describedHeaders(HttpHeaders headers) {
        Map<String, String> described = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.getRequestHeaders().forEach((name, values) -> {
            if (!NOT_DESCRIBED.contains(name.toLowerCase(Locale.ROOT)) && !values.isEmpty()) {
                described.put(name, values.get(0));
            }
        });
        return described;
    }

    private static Long version(GatewayRegistry.Gateway gateway) {
        return gateway.rulesVersion() == GatewayRegistry.UNKNOWN_VERSION ? null : gateway.rulesVersion();
    }

    /** Epoch milliseconds as RFC 3339 in UTC. */
    private static String at(long epochMs) {
        return Instant.ofEpochMilli(epochMs).toString();
    }
}
