package io.tollgate.gateway.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.tollgate.gateway.http.Refusals.Reason;
import io.tollgate.gateway.http.Refusals.Refusal;
import io.tollgate.gateway.key.KeyResolver;
import io.tollgate.gateway.limiter.Limiter;
import io.tollgate.gateway.limiter.decision.RuleDecision;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.proxy.AnswerWatcher;
import io.tollgate.gateway.proxy.ReverseProxy;
import io.tollgate.gateway.proxy.UpstreamFailure;
import io.tollgate.gateway.proxy.WebSocketRelay;
import io.tollgate.gateway.rules.RuleBook;
import io.tollgate.gateway.warmup.WarmupGate;
import io.tollgate.rules.domain.CanonicalPath;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * The thin HTTP edge: match the request's rules, check them, then proxy with the rate-limit headers or
 * answer 429 / 401 / 503 itself. Runs entirely on the request's event loop; the body stays paused until
 * the request is known to go to the backend. The start-up warm-up's own requests ({@link WarmupGate}) take the
 * same path, checked under the warm-up's rules and proxied to its loopback target.
 */
@ApplicationScoped
class GatewayRoute {

    private static final Logger LOG = Logger.getLogger(GatewayRoute.class);
    /**
     * After any route an extension may register. Health, metrics and the operations live on the management
     * interface, so every path of the public port, {@code /q/*} included, is the backend's.
     */
    private static final int LAST = 1_000_000;

    private final RuleBook rules;
    private final Limiter limiter;
    private final ReverseProxy proxy;
    private final WarmupGate warmup;
    private final KeyResolver keys;
    private final Refusals refusals;
    private final WebSocketRelay webSockets;
    private final HeaderChecks heads;

    GatewayRoute(RuleBook rules, Limiter limiter, ReverseProxy proxy, WarmupGate warmup, KeyResolver keys,
            Refusals refusals, WebSocketRelay webSockets, HeaderChecks heads) {
        this.rules = rules;
        this.limiter = limiter;
        this.proxy = proxy;
        this.warmup = warmup;
        this.keys = keys;
        this.refusals = refusals;
        this.webSockets = webSockets;
        this.heads = heads;
    }

    void register(@Observes Router router) {
        router.route().order(LAST).handler(this::handle);
        // before Quarkus's error handler, which would log Vert.x Web's own refusals as errors
        router.route().order(Integer.MIN_VALUE).failureHandler(this::refusedBeforeRoutes);
    }

    /**
     * A request Vert.x Web refused before any route (no authority, a target that is not a path): refused as the
     * gateway refuses what it cannot read ({@link HeaderChecks#beforeRoutes}); any other failure goes on to the next
     * failure handler.
     */
    private void refusedBeforeRoutes(RoutingContext ctx) {
        Refusal refusal = ctx.response().headWritten() ? null : heads.beforeRoutes(ctx.request());
        if (refusal == null) {
            ctx.next();
            return;
        }
        refuse(ctx.request(), refusal.reason(), refusal.detail());
    }

    /**
     * Reads the request once, canonically (its method as sent, its path made canonical), and from then on only
     * that reading: rules match it, routes choose by it, the backend receives it.
     */
    private void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        request.pause();
        if (ClosingConnections.marked(request)) {
            request.connection().close(); // read after a refusal that closes its connection: served to no one
            return;
        }
        Refusal head = heads.refusal(request);
        if (head != null) {
            refuse(request, head.reason(), head.detail());
            return;
        }
        String method = request.method().name();
        if (Methods.misspelled(method)) {
            refuse(request, Reason.BAD_METHOD, "the standard method " + method.toUpperCase(Locale.ROOT)
                    + " is spelled in upper case; '" + method + "' is not it");
            return;
        }
        CanonicalPath path = CanonicalPath.of(request.path());
        if (path.refused()) {
            refuse(request, Reason.BAD_PATH, "the path cannot be read safely: " + path.problem());
            return;
        }
        boolean warming = warmup.claims(request); // one volatile read once the warm-up is over
        List<Rule> matched = warming ? warmup.rules(path.matchPath()) : rules.match(method, path.matchPath());
        URI upstream = warming ? warmup.target() : null; // null: the upstream of the request's path
        if (matched.isEmpty()) {
            forward(request, path, upstream, headers -> {
            }, AnswerWatcher.NONE);
            return;
        }
        KeySpec checked = null; // most requests' rules count by one key: its header is read once
        for (Rule rule : matched) {
            if (rule.key().equals(checked)) {
                continue;
            }
            checked = rule.key();
            String twice = keys.ambiguous(checked, request);
            if (twice != null) {
                refuse(request, Reason.AMBIGUOUS_CLIENT, "rule " + rule.id() + " counts by " + twice
                        + ", which the request carries more than once");
                return;
            }
        }
        Context context = Vertx.currentContext();
        Thread loop = Thread.currentThread();
        limiter.check(matched, request).onComplete(result -> {
            // the answer is written on the request's own thread: hop back only if the store answered elsewhere
            if (Thread.currentThread() == loop || context == null) {
                decided(request, path, upstream, result);
            } else {
                context.runOnContext(v -> decided(request, path, upstream, result));
            }
        });
    }

    /** Refuses a request the gateway cannot read safely, counted by reason; nothing reaches the backend. */
    private void refuse(HttpServerRequest request, Reason reason, String detail) {
        refuse(request, reason, detail, null);
    }

    /** As {@link #refuse(HttpServerRequest, Reason, String)}; a missing key's answer names it ({@code missing}). */
    private void refuse(HttpServerRequest request, Reason reason, String detail, String missing) {
        refusals.count(reason, request.method().name(), request.path(), detail);
        String title = missing != null ? "Missing client key" : reason.status == 501 ? "Not Implemented" : "Bad Request";
        JsonObject problem = Problems.problem(reason.label, title, reason.status, detail);
        if (reason == Reason.BAD_HANDSHAKE) {
            // RFC 6455 §4.2.2: a refused handshake is told the version the gateway speaks
            request.response().putHeader(WebSocketRelay.VERSION_HEADER, WebSocketRelay.VERSION);
        }
        // an HTTP/2 stream is framed by its frames: closing the connection would only cut its other streams
        boolean closing = reason.closes() && request.version() != HttpVersion.HTTP_2;
        refuse(request, missing == null ? problem : problem.put("missing", missing), closing);
    }

    private void decided(HttpServerRequest request, CanonicalPath path, URI upstream, AsyncResult<Verdict> result) {
        if (result.succeeded()) {
            answer(request, path, upstream, result.result());
        } else {
            failed(request, result.cause());
        }
    }

    private void answer(HttpServerRequest request, CanonicalPath path, URI upstream, Verdict verdict) {
        BoundSettlement settlement = BoundSettlement.open(limiter, verdict, request);
        if (!BoundSettlement.live(request, false)) {
            // the client left while its check ran: nobody to answer, nothing to forward, and its slots go back now
            settlement.cancel();
            return;
        }
        try {
            if (verdict.missingKey().isPresent()) {
                String missing = verdict.missingKey().get();
                refuse(request, Reason.MISSING_KEY, "this request needs " + missing, missing);
            } else if (verdict.unavailable()) {
                settlement.cancel();
                request.response().putHeader(RateLimitHeaders.RETRY_AFTER, "1");
                refuse(request, Problems.problem("store-unavailable", "Rate limit store unavailable", 503,
                        "the counter store cannot answer and a rule's failure mode is closed"));
            } else if (!verdict.allowed()) {
                settlement.cancel();
                reject(request, verdict);
            } else {
                forward(request, path, upstream,
                        headers -> verdict.tightest().ifPresent(d -> RateLimitHeaders.write(headers, d)),
                        settlement.watcher());
            }
        } catch (RuntimeException err) {
            settlement.broke();
            broke(request, err);
        }
    }

    private void reject(HttpServerRequest request, Verdict verdict) {
        MultiMap headers = request.response().headers();
        verdict.tightest().ifPresent(d -> RateLimitHeaders.write(headers, d));
        long retryAfter = RateLimitHeaders.retryAfterSeconds(verdict.retryAfterMs());
        headers.set(RateLimitHeaders.RETRY_AFTER, Long.toString(retryAfter));
        JsonArray violated = new JsonArray();
        JsonObject owed = new JsonObject();
        StringBuilder detail = new StringBuilder("rate limit exceeded; retry after ").append(retryAfter).append(" s");
        for (RuleDecision d : verdict.violated()) {
            violated.add(d.rule().id());
            if (d.decision().remaining() < 0) {
                // a bucket in debt: an earlier answer used more than its reservation
                long amount = -d.decision().remaining();
                owed.put(d.rule().id(), amount);
                detail.append("; ").append(d.rule().id()).append(" is owed ").append(amount).append(' ')
                        .append(d.rule().unit().wireName());
            }
        }
        JsonObject problem = Problems.problem("quota-exceeded", "Too Many Requests", 429, detail.toString())
                .put("violated-policies", violated);
        if (!owed.isEmpty()) {
            problem.put("owed", owed);
        }
        refuse(request, problem);
    }

    /**
     * Answers without the backend; the unread body is drained and dropped. When the client holds it back
     * until a {@code 100 Continue}, none comes, so the body is not sent, and the connection closes after the
     * answer (RFC 9110 §10.1.1): a rejected upload costs neither side its body. (What such a client sends
     * anyway is still drained meanwhile, so that the close does not reset the connection under the answer.)
     */
    private static void refuse(HttpServerRequest request, JsonObject problem) {
        refuse(request, problem, false);
    }

    /**
     * As {@link #refuse(HttpServerRequest, JsonObject)}; {@code closing} closes the connection after the answer
     * whatever the body, as for a request whose body's end cannot be read one way only (RFC 9112 §6.1, §6.3).
     */
    private static void refuse(HttpServerRequest request, JsonObject problem, boolean closing) {
        if (request.response().closed()) {
            // the client's stream or connection is gone (it reset it, or the server library did for a frame it broke
            // the protocol with): nobody to answer. On HTTP/2 a write would reset the stream a second time, or throw
            // inside the library's read of the connection and close it (GOAWAY INTERNAL_ERROR) with its other streams
            return;
        }
        boolean bodyHeldBack = !request.isEnded() && ReverseProxy.awaitsContinue(request);
        boolean closes = closing || bodyHeldBack;
        if (closes) {
            request.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        }
        if (closing) {
            ClosingConnections.mark(request);
        }
        if (!request.isEnded()) {
            try {
                request.resume();
            } catch (IllegalStateException alreadyRead) {
                // a stream that broke mid-body is past resuming; the answer below still goes out
            }
        }
        if (GrpcAnswers.isGrpc(request)) {
            GrpcAnswers.send(request, problem);
        } else {
            Problems.send(request.response(), problem);
        }
        if (closes) {
            request.response().close();
        }
    }

    /**
     * Proxies {@code request} as {@code path} to {@code upstream}, or to the upstream of its path when that is null;
     * a WebSocket upgrade is relayed as a socket (docs/websocket.md), its slots held until the socket ends.
     */
    private void forward(HttpServerRequest request, CanonicalPath path, URI upstream,
            java.util.function.Consumer<MultiMap> headers, AnswerWatcher watcher) {
        (WebSocketRelay.isUpgrade(request)
                ? webSockets.relay(request, path, headers, upstream, watcher)
                : upstream == null
                        ? proxy.forward(request, path, headers, watcher)
                        : proxy.forward(request, path, headers, upstream, watcher))
                .onFailure(err -> {
                    int status = err instanceof UpstreamFailure f ? f.status() : 502;
                    String title = status == 504 ? "Gateway Timeout" : "Bad Gateway";
                    String type = status == 504 ? "gateway-timeout" : "bad-gateway";
                    if (status != 502 && status != 504) { // an upstream that refused a WebSocket handshake
                        title = "Upstream refused the WebSocket handshake";
                        type = "upstream-refused";
                    }
                    refuse(request, Problems.problem(type, title, status, err.getMessage()));
                });
    }

    /**
     * An exception on the request's way to the backend: a fault of the gateway, unless the client went away under it
     * (then nothing is answered, and it is no error). Its settlement has ended already.
     */
    private static void broke(HttpServerRequest request, RuntimeException err) {
        if (!BoundSettlement.live(request, false)) {
            LOG.debugf("%s %s: the client went away while it was forwarded (%s)", request.method(), request.path(),
                    err.toString());
        } else if (request.response().headWritten()) {
            LOG.errorf(err, "proxying %s %s failed after the answer's head; the answer is cut", request.method(),
                    request.path());
            request.response().reset();
        } else {
            LOG.errorf(err, "proxying %s %s failed", request.method(), request.path());
            refuse(request, Problems.problem("internal-error", "Internal Server Error", 500, "the gateway failed"));
        }
    }

    private static void failed(HttpServerRequest request, Throwable err) {
        if (!BoundSettlement.live(request, false)) {
            LOG.debugf(err, "limiter failed on %s %s, whose client went away meanwhile", request.method(), request.path());
            return;
        }
        LOG.errorf(err, "limiter failed on %s %s", request.method(), request.path());
        refuse(request, Problems.problem("internal-error", "Internal Server Error", 500, "the limiter failed"));
    }
}
