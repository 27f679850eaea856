package io.tollgate.gateway.sync;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.vertx.http.HttpServerStart;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.rules.RuleBook;
import io.tollgate.rules.domain.RuleCodec;
import io.tollgate.rules.domain.RuleSet;
import io.tollgate.rules.domain.RuleValidationException;
import io.tollgate.rules.domain.WireFormat;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * Keeps the {@link RuleBook} current: fetches at start (falling back to the snapshot), polls every
 * {@code tollgate.rules.poll-interval}, and refetches at once on every {@code rules} event of the watch stream.
 * Every set is validated with the rules service's own codec; an invalid one is refused, logged and counted, and
 * the last good set stays in force. Beside the rules it keeps the client {@link Directory} current the same way
 * ({@link DirectorySync}: on every poll and every {@code directory} event).
 */
@ApplicationScoped
public class RulesLoader {

    private static final Logger LOG = Logger.getLogger(RulesLoader.class);
    private static final long RETRY_WATCH_MS = 2000;
    /** How often, and how many times, to look for the management interface's port once the servers start. */
    private static final long ADMIN_URL_RETRY_MS = 50;
    private static final int ADMIN_URL_TRIES = 200;
    /** The watch stream's event for a directory change; every other event means the rules changed. */
    static final String DIRECTORY_EVENT = "directory";

    private final Vertx vertx;
    private final RuleBook book;
    private final LiveGateways live;
    private final RuleCodec codec = new RuleCodec();
    private final RulesClient client;
    private final PollHeaders headers;
    private final RulesSnapshot snapshot;
    private final DirectorySync directory;
    private final boolean watch;
    private final Counter refusals;
    private final AtomicBoolean fetching = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();
    private final Backoff backoff = new Backoff();
    private final AtomicBoolean retrying = new AtomicBoolean();
    private volatile boolean stopped;
    /**
     * The last set refused, by ETag and body, so a service that keeps serving it is not re-read and re-logged per
     * poll; a different body under the same ETag (a body cut short on its way) is read again.
     */
    private volatile Refused refused;

    RulesLoader(Vertx vertx, GatewayConfig config, RuleBook book, LiveGateways live, Directory directory,
            PollHeaders headers, MeterRegistry registry) {
        this.vertx = vertx;
        this.book = book;
        this.live = live;
        this.headers = headers;
        this.client = new RulesClient(vertx, config.rules().url(), headers, 5000);
        this.snapshot = new RulesSnapshot(Path.of(config.rules().snapshot()), codec);
        this.directory = new DirectorySync(vertx, directory, client, snapshot, config.rules().url().toString(),
                registry);
        this.watch = config.rules().watch();
        this.refusals = Counter.builder("tollgate.rules.refused")
                .description("rule sets refused as invalid; the last good set stayed in force")
                .register(registry);
    }

    void onStart(@Observes StartupEvent event) {
        directory.start();
        poll().onComplete(done -> {
            if (stopped) {
                return;
            }
            if (!book.loaded()) {
                vertx.executeBlocking(() -> {
                    live.remembered(snapshot.readGateways());
                    return snapshot.read();
                }, false).onSuccess(set -> set.ifPresent(s -> book.apply(s, "snapshot")));
            }
            if (watch) {
                startWatch();
            }
        });
    }

    /**
     * The public server listens now, and the management interface does too or will in a moment: its port (a
     * test's port 0 included) is known from then on, where it was not at start. One more poll as soon as it is
     * tells the rules service the address at once, not a poll interval later.
     */
    void onListening(@ObservesAsync HttpServerStart started) {
        announceAdminUrl(ADMIN_URL_TRIES);
    }

    private void announceAdminUrl(int triesLeft) {
        if (stopped) {
            return;
        }
        if (headers.adminUrl() != null) {
            poll();
        } else if (triesLeft > 0) {
            vertx.setTimer(ADMIN_URL_RETRY_MS, t -> announceAdminUrl(triesLeft - 1));
        } else {
            LOG.warn("the management interface's port is still unknown: the rules service learns it at a later poll");
        }
    }

    @Scheduled(every = "${tollgate.rules.poll-interval:30s}", delayed = "${tollgate.rules.poll-interval:30s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduledPoll() {
        poll();
        directory.sync();
    }

    /** Asks for the current set (one fetch at a time; a request during a fetch makes one more after it). */
    Future<Void> poll() {
        if (!fetching.compareAndSet(false, true)) {
            again.set(true);
            return Future.succeededFuture();
        }
        return client.fetch(book.loaded() ? book.version() : -1)
                .onSuccess(fetched -> served())
                .compose(this::take)
                .onFailure(this::failed)
                .eventually(() -> {
                    fetching.set(false);
                    return again.getAndSet(false) && !stopped ? poll() : Future.succeededFuture();
                })
                .mapEmpty();
    }

    private void served() {
        int refusals = backoff.served();
        if (refusals > 0) {
            LOG.infof("the rules service serves this gateway's polls again, after %d refused", refusals);
        }
    }

    /**
     * A poll the rules service refused (a throttled address, a token it does not take, its own failure) is asked
     * again with {@link Backoff}, not at the next scheduled poll: a rule change waits moments, not a poll interval.
     * One WARN per streak of refusals. A service out of reach is polled on schedule and by the watch stream's return.
     */
    private void failed(Throwable err) {
        if (!(err instanceof RulesClient.NotServed refused)) {
            LOG.debugf("rules service unreachable: %s", err.toString());
            return;
        }
        long waitMs = backoff.refused();
        if (backoff.firstRefusal()) {
            LOG.warnf("the rules service refused this gateway's poll (%d): asking again in %d ms, backing off to %d ms",
                    refused.status(), waitMs, Backoff.MAX_MS);
        } else {
            LOG.debugf("the rules service refused this gateway's poll (%d): asking again in %d ms", refused.status(),
                    waitMs);
        }
        if (!stopped && retrying.compareAndSet(false, true)) {
            vertx.setTimer(waitMs, t -> {
                retrying.set(false);
                poll();
            });
        }
    }

    private Future<Void> take(RulesClient.Fetched fetched) {
        if (live.heard(fetched.gateways())) {
            int count = live.count();
            vertx.executeBlocking(() -> {
                snapshot.writeGateways(count);
                return null;
            }, false);
        }
        if (fetched.status() == 304) {
            book.confirmed();
            return Future.succeededFuture();
        }
        Refused last = refused;
        if (last != null && last.same(fetched)) {
            return Future.succeededFuture();
        }
        return vertx.executeBlocking(() -> load(fetched.body(), fetched.etag()), false);
    }

    /** Parses, validates, applies and snapshots one set; blocking (file write), so on a worker. */
    private Void load(Buffer body, String etag) {
        RuleSet set;
        try {
            set = codec.parseRuleSet(body.getBytes(), WireFormat.JSON);
        } catch (RuleValidationException e) {
            refused = new Refused(etag, body.length(), body.hashCode());
            refusals.increment();
            LOG.errorf("rule set from the rules service (ETag %s, %d bytes) refused, version %d stays in force: %s",
                    etag, body.length(), book.version(), e.getMessage());
            return null;
        }
        if (book.apply(set, "rules service")) {
            snapshot.write(set);
        }
        return null;
    }

    /** A refused set: its ETag and its body's length and hash. */
    private record Refused(String etag, int length, int hash) {

        boolean same(RulesClient.Fetched fetched) {
            return etag != null && etag.equals(fetched.etag()) && fetched.body().length() == length
                    && fetched.body().hashCode() == hash;
        }
    }

    private void startWatch() {
        if (stopped) {
            return;
        }
        client.watch(book.version(), new SseListener() {

            @Override
            public void event(String type, String data) {
                if (DIRECTORY_EVENT.equals(type)) {
                    directory.sync();
                } else {
                    poll();
                }
            }

            @Override
            public void closed(Throwable error) {
                retryWatch();
            }
        }).onSuccess(v -> {
            // what changed while the stream was down sent no event
            poll();
            directory.sync();
        }).onFailure(err -> retryWatch());
    }

    private void retryWatch() {
        if (!stopped) {
            vertx.setTimer(RETRY_WATCH_MS, t -> startWatch());
        }
    }

    /**
     * The directory's labels of the clients named by {@code digests} (SHA-256 hex), asked of the rules service:
     * the gateway's copy of the directory keeps no labels. Clients without one are absent.
     */
    public Future<Map<String, String>> labels(List<String> digests) {
        return digests.isEmpty() ? Future.succeededFuture(Map.of()) : client.labels(digests);
    }

    @PreDestroy
    void stop() {
        stopped = true;
        directory.stop();
        client.close();
    }
}
