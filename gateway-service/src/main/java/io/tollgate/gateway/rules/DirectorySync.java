package io.tollgate.gateway.rules;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.gateway.clients.Directory;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.DirectoryCodec;
import io.tollgate.rules.domain.RuleValidationException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * Keeps the gateway's copy of the client directory current: at start the snapshot (when there is one: the gateway
 * is ready as soon as it is read) and then the changes since it, page by page; again on every {@code directory}
 * event of the watch stream and every poll. Pages are applied in order, each whole or not at all (a failed page
 * leaves the copy as it was, and the next sync asks for it again); a page that says the service's changes were
 * renumbered ({@code Tollgate-Directory-Reset}) starts a copy from nothing, which is put in force once its last
 * page is in, the old one serving until then; so does a gateway's first copy when it has no snapshot (gathered
 * whole rather than merged page by page: {@code FreshCopy}). The snapshot is written off the event loop at most once per
 * {@link #SAVE_EVERY_MS} while changes come.
 */
final class DirectorySync {

    private static final Logger LOG = Logger.getLogger(DirectorySync.class);
    /** Changes asked for per page: the rules service's default page. */
    static final int PAGE = 10_000;
    static final long SAVE_EVERY_MS = 1000;

    private final Vertx vertx;
    private final Directory directory;
    private final RulesClient client;
    private final RulesSnapshot snapshot;
    /** The rules service, named in the snapshot: a snapshot of another one's directory is rebuilt from nothing. */
    private final String source;
    private final DirectoryCodec codec = new DirectoryCodec();
    private final Counter refusals;
    private final AtomicBoolean syncing = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();
    private final AtomicBoolean saveDue = new AtomicBoolean();
    /** The copy must be built from nothing (a reset, or a snapshot of another service) until one is complete. */
    private volatile boolean fromNothing;
    /** The copy being built from nothing, page by page; only the sync in flight touches it. */
    private volatile Directory.Rebuild rebuilding;
    private volatile boolean started;
    private volatile boolean stopped;

    DirectorySync(Vertx vertx, Directory directory, RulesClient client, RulesSnapshot snapshot, String source,
            MeterRegistry registry) {
        this.vertx = vertx;
        this.directory = directory;
        this.client = client;
        this.snapshot = snapshot;
        this.source = source;
        this.refusals = Counter.builder("tollgate.directory.refused")
                .description("pages of directory changes refused as invalid; the copy stayed as it was")
                .register(registry);
    }

    /**
     * Reads the snapshot (on a worker), then syncs; the directory counts as loaded once either is done. No sync
     * starts before the snapshot is read, so a sync never applies changes the snapshot then overwrites.
     */
    void start() {
        vertx.executeBlocking(() -> snapshot.readDirectory(directory), false)
                .onComplete(read -> {
                    restored(read.succeeded() ? read.result() : Optional.empty());
                    started = true;
                    sync();
                });
    }

    private void restored(Optional<String> from) {
        if (from.isEmpty()) {
            fromNothing = true; // a first copy: gathered whole, then put in force at once
            return;
        }
        directory.markLoaded();
        if (!from.get().equals(source)) {
            LOG.infof("directory snapshot came from %s, not %s: it serves until a copy from nothing is in", from.get(),
                    source);
            fromNothing = true;
        }
    }

    /** Asks for the changes since the copy's (one sync at a time; a call during one makes one more after it). */
    Future<Void> sync() {
        if (stopped) {
            return Future.succeededFuture();
        }
        if (!started || !syncing.compareAndSet(false, true)) {
            again.set(true);
            return Future.succeededFuture();
        }
        return page()
                .onFailure(this::failed)
                .eventually(() -> {
                    directory.markLoaded(); // loaded, or out of reach with no snapshot: nothing more to wait for
                    syncing.set(false);
                    return again.getAndSet(false) ? sync() : Future.succeededFuture();
                })
                .mapEmpty();
    }

    /** One page, then the next while the service says more wait. */
    private Future<Void> page() {
        if (fromNothing && rebuilding == null) {
            rebuilding = directory.rebuild();
        }
        Directory.Rebuild building = rebuilding;
        long since = building != null ? building.seq() : directory.seq();
        return client.directory(since, PAGE)
                .compose(page -> vertx.executeBlocking(() -> take(page), false))
                .compose(more -> more && !stopped ? page() : Future.succeededFuture());
    }

    /** Parses, checks and applies one page; blocking (a large page), so on a worker. Whether more wait. */
    private boolean take(RulesClient.DirectoryPage page) {
        DirectoryChanges changes = codec.parseChanges(page.body().getBytes());
        if (page.reset()) {
            LOG.infof("the rules service renumbered its directory changes: rebuilding the copy (change %d here)",
                    directory.seq());
            fromNothing = true;
            rebuilding = directory.rebuild();
        }
        Directory.Rebuild building = rebuilding;
        if (building != null) {
            building.apply(changes);
            if (!changes.more()) {
                directory.replace(building);
                rebuilding = null;
                fromNothing = false;
                saveSoon();
            }
        } else if (changes.seq() != directory.seq() || !changes.clients().isEmpty() || !changes.tenants().isEmpty()) {
            directory.apply(changes);
            saveSoon();
        }
        return changes.more();
    }

    private void failed(Throwable err) {
        rebuilding = null; // a copy from nothing starts again from nothing at the next sync
        if (err instanceof RuleValidationException) {
            refusals.increment();
            LOG.errorf("a page of directory changes after %d was refused, the copy stays as it was: %s",
                    directory.seq(), err.getMessage());
        } else {
            LOG.debugf("directory changes unreachable: %s", err.toString());
        }
    }

    /** Writes the snapshot in a moment, once for all the changes that come meanwhile. */
    private void saveSoon() {
        if (saveDue.compareAndSet(false, true)) {
            vertx.setTimer(SAVE_EVERY_MS, t -> vertx.executeBlocking(() -> {
                saveDue.set(false);
                snapshot.writeDirectory(directory, source);
                return null;
            }, false));
        }
    }

    void stop() {
        stopped = true;
    }
}
