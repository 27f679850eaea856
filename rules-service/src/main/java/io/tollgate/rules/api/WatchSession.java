package io.tollgate.rules.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.tollgate.rules.store.Revision;
import io.tollgate.rules.store.RuleChanges;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;

/**
 * One open watch stream, of rules versions and (through {@link DirectoryEvents}) directory changes. It keeps a cursor (the last
 * version sent) and, on every poke (the start, a NOTIFY
 * from any instance, a LISTEN reconnect), reads the revisions after the cursor and sends them: so a reconnect
 * with {@code since} replays exactly what was missed, and no poke can be lost between a read and a send. The read
 * is shared with the other streams at the same cursor ({@link SharedReads}), if it began after the latest poke.
 * All state is touched on the connection's own event-loop context only.
 */
final class WatchSession {

    private static final Logger LOG = Logger.getLogger(WatchSession.class);
    private static final int BATCH_VERSIONS = SharedReads.BATCH_VERSIONS;

    private final HttpServerResponse response;
    private final Context context;
    private final SharedReads reads;
    private final ObjectMapper mapper;
    private long cursor;
    private long pokedNanos;
    private boolean fetching;
    private boolean again;
    private boolean closed;
    private Runnable unsubscribe = () -> {
    };
    private Runnable unsubscribeDirectory = () -> {
    };
    private long timerId = -1;
    private Vertx vertx;
    private final Runnable release;

    WatchSession(HttpServerResponse response, Context context, SharedReads reads, ObjectMapper mapper, long since,
            Runnable release) {
        this.release = release;
        this.response = response;
        this.context = context;
        this.reads = reads;
        this.mapper = mapper;
        this.cursor = since;
    }

    /** An event: one version and its revisions. */
    record Event(long version, List<Revision> changes) {
    }

    /** Starts the stream; {@code directory} sends its directory events. */
    void start(Vertx vertx, RuleChanges changes, Duration heartbeat, DirectoryEvents directory) {
        this.vertx = vertx;
        response.closeHandler(v -> close());
        response.exceptionHandler(e -> close());
        write("retry: 1000\n: watching versions after " + cursor + "\n\n");
        pokedNanos = System.nanoTime();
        unsubscribe = changes.subscribe(() -> {
            long at = System.nanoTime();
            context.runOnContext(v -> poke(at));
        });
        unsubscribeDirectory = changes.subscribeDirectory(() -> context.runOnContext(v -> {
            if (!closed) {
                directory.poke();
            }
        }));
        directory.poke(); // a change between reading the directory's seq and subscribing would be missed
        timerId = vertx.setPeriodic(heartbeat.toMillis(), id -> context.runOnContext(v -> write(": heartbeat\n\n")));
        fetch();
    }

    private void poke(long atNanos) {
        pokedNanos = Math.max(pokedNanos, atNanos);
        fetch();
    }

    private void fetch() {
        if (closed) {
            return;
        }
        if (fetching) {
            again = true; // read once more when the read in flight is done: it may predate this commit
            return;
        }
        fetching = true;
        again = false;
        reads.since(cursor, pokedNanos)
                .subscribe()
                .with(revisions -> context.runOnContext(v -> deliver(revisions)),
                        failure -> context.runOnContext(v -> {
                            LOG.warnf("watch read failed (%s); closing the stream, the client reconnects",
                                    failure.getMessage());
                            response.reset();
                            close();
                        }));
    }

    private void deliver(List<Revision> revisions) {
        fetching = false;
        long before = cursor;
        List<Revision> batch = new ArrayList<>();
        for (Revision r : revisions) {
            if (!batch.isEmpty() && batch.get(0).version() != r.version()) {
                send(batch);
                batch = new ArrayList<>();
            }
            batch.add(r);
        }
        if (!batch.isEmpty()) {
            send(batch);
        }
        // versions are contiguous: a batch that reached its bound may have more behind it
        boolean full = cursor - before >= BATCH_VERSIONS;
        if (again || full) {
            fetch();
        }
    }

    private void send(List<Revision> batch) {
        long version = batch.get(0).version();
        try {
            write("id: " + version + "\nevent: rules\ndata: " + mapper.writeValueAsString(new Event(version, batch))
                    + "\n\n");
            cursor = version;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a revision always serialises", e);
        }
    }

    /** Writes {@code text} unless the stream is closed; a client too slow to read it is dropped. */
    void write(String text) {
        if (closed) {
            return;
        }
        if (response.writeQueueFull()) {
            // a client that does not read is dropped, not buffered for: it reconnects with Last-Event-ID
            LOG.debug("watch client too slow; closing its stream");
            response.reset();
            close();
            return;
        }
        response.write(text);
    }

    private void close() {
        if (closed) {
            return;
        }
        closed = true;
        release.run();
        unsubscribe.run();
        unsubscribeDirectory.run();
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
    }
}
