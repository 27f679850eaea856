package io.tollgate.rules.api;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.store.Revision;
import io.tollgate.rules.store.RuleStore;

/**
 * The PostgreSQL reads of the watch streams: streams at the same version that need the revisions after it at the
 * same time share one read, so a change costs one query per position rather than one per stream. A stream joins
 * a read only if it began after the stream's latest poke: a read begun before a commit's NOTIFY may miss that
 * commit, and the stream then starts a read of its own.
 */
final class SharedReads {

    /** The most versions one read returns; a full batch is followed by another read. */
    static final int BATCH_VERSIONS = 100;

    private record Read(long startedNanos, Uni<List<Revision>> revisions) {
    }

    private final RuleStore store;
    private final ConcurrentMap<Long, Read> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong started = new AtomicLong();

    SharedReads(RuleStore store) {
        this.store = store;
    }

    /** The revisions after {@code cursor}, from a read begun no earlier than {@code notBeforeNanos}. */
    Uni<List<Revision>> since(long cursor, long notBeforeNanos) {
        return inFlight.compute(cursor, (version, read) -> read != null && read.startedNanos() >= notBeforeNanos
                ? read
                : start(version)).revisions();
    }

    private Read start(long cursor) {
        AtomicReference<Read> self = new AtomicReference<>();
        // stamped before the query is sent, so a stream joins only reads that surely began after its poke
        long startedNanos = System.nanoTime();
        started.incrementAndGet();
        Uni<List<Revision>> revisions = store.since(cursor, BATCH_VERSIONS)
                .onTermination().invoke(() -> inFlight.remove(cursor, self.get()))
                .memoize().indefinitely();
        Read read = new Read(startedNanos, revisions);
        self.set(read);
        return read;
    }

    /** Reads begun so far. */
    long started() {
        return started.get();
    }
}
