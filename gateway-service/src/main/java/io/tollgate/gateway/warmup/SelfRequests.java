package io.tollgate.gateway.warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * The warm-up's client: sends the gateway, on its own port, requests that carry the gate's secret, over
 * several keep-alive connections (lanes, one request at a time each, spread over the event loops). A lane
 * joins when the one before it has its first answer, so a cold gateway is not hit by all of them at once.
 * <p>
 * It opens with a burst of {@value #BURST} requests at once on a rule of one request per 100 ms, so the 429
 * path (from the store and from memory) is taken whatever the machine's speed. Then, of every 8 requests, 6 are
 * checked against a bucket that never rejects and proxied (one of them with a 2 KB body), one is proxied
 * without a rule and one meets the rule of one per 100 ms again.
 * <p>
 * A check the failure mode decided (the gateway says {@code RateLimit-Remaining} = the whole bucket: the store
 * spent nothing) warmed nothing of the store path, and while the circuit breaker is open every check is
 * decided so, at once. So when the store answered the warm-up's store checks, a lane whose check was decided by
 * the failure mode sends, every {@value #SETTLE_PAUSE_MS} ms, a check that does not count, until the store
 * decides one again: a breaker the warm-up's own checks opened (on a cold gateway they miss the store timeout)
 * has closed on a probe before the warm-up ends, and the first real requests do not meet it open.
 * <p>
 * No request is given up on: the gate closes once every request sent has its answer (the gateway always
 * answers, within its store and upstream timeouts), so none can arrive after it and be taken for a client's.
 */
final class SelfRequests {

    private static final int KEYS = 64;
    private static final int BURST = 4;
    private static final String REJECT_KEY = "warmup-reject";
    private static final Buffer BODY = Buffer.buffer(new byte[2048]);
    /** What a check of the never-rejecting rule says when the store did not decide it. */
    private static final String UNSPENT = Long.toString(WarmupGate.CHECK_LIMIT);
    /** Tries to find the 429 rule's window over, so the limiter forgets the rejection it remembers. */
    private static final int CLEAR_ATTEMPTS = 5;
    private static final long SETTLE_PAUSE_MS = 50;

    /** A warm-up request's answer: its status, and whether its check was decided without the store. */
    private record Answer(int status, boolean unspent) {
    }

    private final Vertx vertx;
    private final HttpClient client;
    private final String host;
    private final int port;
    private final String secret;
    private final String apiKeyHeader;
    private final int total;
    private final BooleanSupplier stopped;
    private final boolean settle;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger lanesAlive = new AtomicInteger();
    private final Promise<Void> drained = Promise.promise();
    private final AtomicInteger answered = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();
    private final AtomicInteger other = new AtomicInteger();

    /**
     * @param total how many requests to send (checks sent while settling not counted)
     * @param stopped whether to stop sending, whatever was sent (the bound is past)
     * @param settle whether a lane waits for the store to decide its checks again (the store answered before)
     */
    SelfRequests(Vertx vertx, String host, int port, String secret, String apiKeyHeader, int total, int lanes,
            BooleanSupplier stopped, boolean settle) {
        this.vertx = vertx;
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(lanes));
        this.host = host;
        this.port = port;
        this.secret = secret;
        this.apiKeyHeader = apiKeyHeader;
        this.total = total;
        this.stopped = stopped;
        this.settle = settle;
    }

    /** Sends the burst, then the requests on {@code lanes} lanes over {@code loops}; completes when every answer is in. */
    Future<Void> run(List<Context> loops, int lanes) {
        List<Future<Answer>> burst = new ArrayList<>(BURST);
        for (int i = 0; i < BURST; i++) {
            Promise<Answer> answer = Promise.promise();
            loops.get(i % loops.size()).runOnContext(v -> reject().onComplete(answer));
            burst.add(answer.future());
        }
        Future.join(burst).onComplete(all -> {
            burst.forEach(this::count);
            lanesAlive.set(1);
            loops.get(0).runOnContext(v -> lane(0, true, false, loops, lanes));
        });
        return drained.future();
    }

    /** The lane's next request: a counted one, or while {@code settling} a check that does not count. */
    private void lane(int index, boolean first, boolean settling, List<Context> loops, int lanes) {
        int i = settling ? 1 : next.getAndIncrement(); // 1: a plain check
        if (stopped.getAsBoolean() || !settling && i >= total) {
            if (lanesAlive.decrementAndGet() == 0) {
                drained.tryComplete();
            }
            return;
        }
        send(i).onComplete(result -> {
            count(result);
            if (first && index + 1 < lanes) {
                lanesAlive.incrementAndGet();
                loops.get((index + 1) % loops.size()).runOnContext(v -> lane(index + 1, true, false, loops, lanes));
            }
            if (settle && result.succeeded() && result.result().unspent()) {
                vertx.setTimer(SETTLE_PAUSE_MS, t -> lane(index, false, true, loops, lanes));
            } else {
                lane(index, false, false, loops, lanes);
            }
        });
    }

    private Future<Answer> send(int i) {
        RequestOptions options = new RequestOptions().setHost(host).setPort(port).putHeader(WarmupGate.HEADER, secret);
        String key = "warmup-" + i % KEYS;
        return switch (i % 8) {
            case 0 -> exchange(options.setMethod(HttpMethod.POST).setURI(WarmupGate.CHECK_PATH + "?n=" + i)
                    .putHeader(apiKeyHeader, key), BODY);
            case 4 -> exchange(options.setMethod(HttpMethod.GET).setURI(WarmupGate.PASS_PATH), null);
            case 7 -> reject();
            default -> exchange(options.setMethod(HttpMethod.GET).setURI(WarmupGate.CHECK_PATH)
                    .putHeader(apiKeyHeader, key), null);
        };
    }

    /** A request on the one bucket of the rule of one request per 100 ms. */
    private Future<Answer> reject() {
        return exchange(new RequestOptions().setHost(host).setPort(port).putHeader(WarmupGate.HEADER, secret)
                .setMethod(HttpMethod.GET).setURI(WarmupGate.REJECT_PATH).putHeader(apiKeyHeader, REJECT_KEY), null);
    }

    private Future<Answer> exchange(RequestOptions options, Buffer body) {
        return client.request(options)
                .compose(request -> (body == null ? request.send() : request.send(body))
                        .compose(response -> response.body().map(ignored -> new Answer(response.statusCode(),
                                UNSPENT.equals(response.getHeader("RateLimit-Remaining"))))));
    }

    private void count(AsyncResult<Answer> result) {
        answered.incrementAndGet();
        int status = result.succeeded() ? result.result().status() : -1;
        if (status == 429) {
            rejected.incrementAndGet();
        } else if (status < 200 || status >= 300) {
            other.incrementAndGet();
        }
    }

    /**
     * Once the 429 rule's window is over, one more request on its bucket: the store allows it and the limiter
     * forgets the rejection it remembered, so no entry of the warm-up stays in its memory (an empty memory is
     * its fast path).
     */
    Future<Void> clearRejection() {
        Promise<Void> cleared = Promise.promise();
        clear(CLEAR_ATTEMPTS, cleared);
        return cleared.future();
    }

    private void clear(int left, Promise<Void> cleared) {
        reject().onComplete(result -> {
            count(result);
            if (result.succeeded() && result.result().status() == 429 && left > 1) {
                vertx.setTimer(WarmupGate.REJECT_WINDOW.toMillis(), t -> clear(left - 1, cleared));
            } else {
                cleared.complete();
            }
        });
    }

    int answered() {
        return answered.get();
    }

    int rejected() {
        return rejected.get();
    }

    int other() {
        return other.get();
    }

    Future<Void> close() {
        return client.close();
    }
}
