package io.tollgate.rules.api;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.auth.Endpoints;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemMappers;
import io.tollgate.rules.store.DirectoryFeed;
import io.tollgate.rules.store.RuleChanges;
import io.tollgate.rules.store.RuleStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/v1/rules/watch?since=N}: a Server-Sent Events stream with one event per version after N
 * ({@code id} = the version, {@code event: rules}, {@code data} = {@code {"version": N, "changes": [revision,
 * ...]}}, the same revisions as the history), and {@code event: directory} ({@code data: {"seq": N}}, no id)
 * after directory changes committed while the stream is open. Without {@code since}, {@code Last-Event-ID} is used; without
 * either, the
 * stream starts at the current version. Written on the Vert.x router so that heartbeat comments and
 * flushing are explicit. It needs a {@code gateway} token or better ({@link Endpoints}); at most
 * {@code tollgate.watch.max-streams} streams are open at once, 503 with {@code Retry-After} beyond.
 */
@ApplicationScoped
class WatchRoute {

    static final String PATH = "/api/v1/rules/watch";
    /** Long enough for a stream to end elsewhere, short enough that a gateway is not long without its stream. */
    static final long FULL_RETRY_AFTER_SECONDS = 5;

    private final RuleStore store;
    private final DirectoryFeed directory;
    private final RuleChanges changes;
    private final ObjectMapper mapper;
    private final ProblemMappers problems;
    private final Vertx vertx;
    private final Duration heartbeat;
    private final WatchSlots slots;
    private final SharedReads reads;
    private final Endpoints endpoints;

    WatchRoute(RuleStore store, DirectoryFeed directory, RuleChanges changes, ObjectMapper mapper,
            ProblemMappers problems, Vertx vertx, RulesConfig config, MeterRegistry meters, Endpoints endpoints) {
        this.endpoints = endpoints;
        this.store = store;
        this.directory = directory;
        this.changes = changes;
        this.mapper = mapper;
        this.problems = problems;
        this.vertx = vertx;
        this.heartbeat = config.watch().heartbeat();
        this.slots = new WatchSlots(config.watch().maxStreams());
        this.reads = new SharedReads(store);
        FunctionCounter.builder("tollgate.rules.watch.reads", reads, SharedReads::started)
                .description("PostgreSQL reads of the watch streams, each shared by the streams at one position")
                .register(meters);
        meters.gauge("tollgate.rules.watch.streams", slots, WatchSlots::open);
        meters.gauge("tollgate.rules.watchers", changes, RuleChanges::listenerCount);
        meters.gauge("tollgate.rules.listening", changes, c -> c.listening() ? 1 : 0);
    }

    void install(@Observes Router router) {
        // ordered before the REST endpoints, where "watch" would otherwise be taken for a rule id
        endpoints.needs(router.get(PATH).order(-100), Scope.GATEWAY, this::watch);
    }

    private void watch(RoutingContext ctx) {
        String given = ctx.request().getParam("since");
        if (given == null) {
            given = ctx.request().getHeader(Headers.LAST_EVENT_ID);
        }
        if (given == null) {
            store.version().subscribe().with(version -> open(ctx, version), ctx::fail);
            return;
        }
        try {
            long since = Long.parseLong(given.trim());
            if (since < 0) {
                throw new NumberFormatException("negative");
            }
            open(ctx, since);
        } catch (NumberFormatException e) {
            problems.send(ctx.response(), new Problem("bad-request", "Bad since", 400,
                    "since (or Last-Event-ID) must be a version, a whole number >= 0; was " + given));
        }
    }

    private void open(RoutingContext ctx, long since) {
        Runnable release = slots.take();
        if (release == null) {
            ctx.response().putHeader("Retry-After", Long.toString(FULL_RETRY_AFTER_SECONDS));
            problems.send(ctx.response(), new Problem("too-many-streams", "Too many watch streams", 503,
                    "this instance has its " + slots.max() + " watch streams (tollgate.watch.max-streams) open: retry later"));
            return;
        }
        ctx.response().closeHandler(v -> release.run());
        ctx.response()
                .setChunked(true)
                .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
                .putHeader("X-Accel-Buffering", "no");
        Context context = vertx.getOrCreateContext();
        // the directory's seq now: a change committed after it is announced by an event
        directory.seq().subscribe().with(seq -> context.runOnContext(v -> {
            WatchSession session = new WatchSession(ctx.response(), context, reads, mapper, since, release);
            session.start(vertx, changes, heartbeat, new DirectoryEvents(directory, seq, context, session::write));
        }), failure -> {
            release.run();
            ctx.fail(failure);
        });
    }
}
