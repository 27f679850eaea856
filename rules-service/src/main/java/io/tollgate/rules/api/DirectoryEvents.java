package io.tollgate.rules.api;

import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.tollgate.rules.store.DirectoryFeed;
import io.vertx.core.Context;

/**
 * The directory part of one watch stream: on every poke it reads the directory's seq and, when that moved since
 * the last event, has {@code event: directory} with {@code data: {"seq": N}} sent. Pokes that come while a read is
 * in flight make one more read (coalesced: one event may cover many changes; the gateway reads
 * {@code /api/v1/directory?since=<its seq>}). The event has no {@code id}, so {@code Last-Event-ID} stays the
 * rules version. Touched on the stream's own context only.
 */
final class DirectoryEvents {

    private static final Logger LOG = Logger.getLogger(DirectoryEvents.class);

    private final DirectoryFeed feed;
    private final Context context;
    private final Consumer<String> write;
    private long sent;
    private boolean fetching;
    private boolean again;

    /** Events after {@code seq}, the directory's seq when the stream opened, written through {@code write}. */
    DirectoryEvents(DirectoryFeed feed, long seq, Context context, Consumer<String> write) {
        this.feed = feed;
        this.sent = seq;
        this.context = context;
        this.write = write;
    }

    void poke() {
        if (fetching) {
            again = true; // the read in flight may predate this commit
            return;
        }
        fetching = true;
        again = false;
        feed.seq().subscribe().with(seq -> context.runOnContext(v -> deliver(seq)),
                failure -> context.runOnContext(v -> {
                    LOG.warnf("directory seq read failed (%s); the next poke reads again", failure.getMessage());
                    fetching = false;
                }));
    }

    private void deliver(long seq) {
        fetching = false;
        if (seq != sent) {
            write.accept("event: directory\ndata: {\"seq\":" + seq + "}\n\n");
            sent = seq;
        }
        if (again) {
            poke();
        }
    }
}
