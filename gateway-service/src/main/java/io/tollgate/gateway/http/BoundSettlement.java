package io.tollgate.gateway.http;

import io.tollgate.gateway.limiter.Limiter;
import io.tollgate.gateway.limiter.decision.Verdict;
import io.tollgate.gateway.limiter.settlement.Settlement;
import io.tollgate.gateway.proxy.AnswerWatcher;
import io.tollgate.gateway.proxy.WebSocketRelay;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * A request's settlement bound to its exchange from the moment the check's answer arrives (docs/protocols.md, "A
 * request's settlement ends exactly once"). Its end is the settlement's own, which comes once however often it is
 * called: the answer's end, the client's reset or disconnect, an upstream failure, an exception on the way. Its
 * slots are renewed only while the exchange is live (the client's stream or connection open and its answer not
 * over), so a path that missed the end cannot keep a slot: the first renewal after the exchange ended gives the
 * slots back. A check whose answer comes for an exchange already over (the client left while it ran) gives them
 * back at once, and nothing is forwarded.
 */
final class BoundSettlement {

    /** Owes nothing: most requests. */
    private static final BoundSettlement NOTHING = new BoundSettlement(null);

    private final Settlement settlement;

    private BoundSettlement(Settlement settlement) {
        this.settlement = settlement;
    }

    /** What {@code verdict}'s {@code request} owes, bound to its exchange. */
    static BoundSettlement open(Limiter limiter, Verdict verdict, HttpServerRequest request) {
        // asked at a renewal only (every third of a slot's time): no header is read on the request's way
        Settlement settlement = limiter.settlementOf(verdict, () -> live(request, WebSocketRelay.isUpgrade(request)));
        return settlement == null ? NOTHING : new BoundSettlement(settlement);
    }

    /**
     * Whether {@code request}'s exchange still runs: its connection open and, unless it became a WebSocket (whose
     * relay ends it), its own stream open and its answer not yet ended.
     */
    static boolean live(HttpServerRequest request, boolean upgrade) {
        HttpConnection connection = request.connection();
        if (connection instanceof ConnectionBase base && !base.channel().isActive()) {
            return false;
        }
        HttpServerResponse response = request.response();
        return upgrade || !response.closed() && !response.ended();
    }

    /** The watcher the proxy tells of the answer and the exchange's end. */
    AnswerWatcher watcher() {
        return settlement == null ? AnswerWatcher.NONE : settlement;
    }

    /** The request is not forwarded (refused, or its client gone): its slots go back now. */
    void cancel() {
        if (settlement != null) {
            settlement.cancel();
        }
    }

    /** The exchange broke before its answer was whole (an exception on the way): it ends here, once. */
    void broke() {
        if (settlement != null) {
            settlement.ended(false);
        }
    }
}
