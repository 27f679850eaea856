package io.tollgate.gateway.sync;

import java.io.IOException;
import java.io.InputStream;
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
 * is ready as soon as it is read) and then the changes since it; again on every {@code directory} event of the
 * watch stream and every poll. A gateway just behind (the changes fit one page) applies that page. A gateway far
 * behind (a bulk import, a new gateway, one back from an outage) takes a whole copy when that costs less than the
 * changes ({@link #copyPays}): one stream of 36 bytes a client, read as it arrives, put in force whole, then the
 * pages after it. A gateway a few pages behind, or whose rules service serves no copies, gathers every page apart,
 * the copy in force serving meanwhile, and puts the next copy in force whole once the last page is in, merged in one
 * pass rather than page after page ({@code Directory.NextCopy}); past {@link #GATHER_MAX} changes it merges what it
 * gathered and gathers on, so the heap holds two copies and at most that many changes. A page that says the
 * service's changes were renumbered ({@code Tollgate-Directory-Reset}) starts the next copy from nothing, and so
 * does a gateway's first copy when it has no snapshot. A failed page or copy leaves the copy as it was, and the next
 * sync asks again; a refused one ({@link RulesClient.NotServed}) is asked again with {@link Backoff}. The snapshot is written
 * off the event loop at most once per {@link #SAVE_EVERY_MS} while changes
 * come.
 */
final class DirectorySync {

    private static final Logger LOG = Logger.getLogger(DirectorySync.class);
    /** Changes asked for per page: the rules service's default page. */
    static final int PAGE = 10_000;
    static final long SAVE_EVERY_MS = 1000;
    /**
     * Client changes gathered on top of the copy in force before they are merged in and the gathering goes on:
     * the heap holds the copy in force, the merged one and what was gathered (36 bytes a change), so a million
     * changes onto a million clients are merged ten times, never gathered whole beside two full copies.
     */
    static final int GATHER_MAX = 100_000;

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
    private final Backoff backoff = new Backoff();
    private final AtomicBoolean retrying = new AtomicBoolean();
    /** The copy must be built from nothing (a reset, or a snapshot of another service) until one is complete. */
    private volatile boolean fromNothing;
    /** The next copy being gathered, page by page; only the sync in flight touches it. */
    private volatile Directory.NextCopy next;
    private volatile boolean started;
    /** Whether the service serves whole copies; false once it answered it does not. */
    private volatile boolean copies = true;
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
                .onSuccess(v -> served())
                .onFailure(this::failed)
                .eventually(() -> {
                    directory.markLoaded(); // loaded, or out of reach with no snapshot: nothing more to wait for
                    syncing.set(false);
                    return again.getAndSet(false) ? sync() : Future.succeededFuture();
                })
                .mapEmpty();
    }

    /**
     * One page, then the next while the service says more wait; when the first says the gateway is far behind, a
     * whole copy instead, then the pages after it.
     */
    private Future<Void> page() {
        if (fromNothing && next == null) {
            next = directory.fromNothing();
        }
        Directory.NextCopy building = next;
        long since = building != null ? building.seq() : directory.seq();
        long askedNanos = System.nanoTime();
        return client.directory(since, PAGE)
                .compose(page -> building == null || building.changes() == 0
                        ? copyPays(page, since) ? wholeCopy(page) : take(page, since, askedNanos)
                        : take(page, since, askedNanos))
                .compose(more -> more && !stopped ? page() : Future.succeededFuture());
    }

    private Future<Boolean> take(RulesClient.DirectoryPage page, long since, long askedNanos) {
        return vertx.executeBlocking(() -> take(page.body().getBytes(), page, since, askedNanos), false);
    }

    /**
     * Whether a whole copy costs less than the pages of changes {@code page} begins: the service serves copies,
     * more than a page waits, and the changes are a quarter of the copy's size or more (each change costs about
     * ten times what a client of a copy does), or the copy must be built from nothing anyway.
     */
    private boolean copyPays(RulesClient.DirectoryPage page, long since) {
        if (!copies || page.current() < 0) {
            return false;
        }
        long behind = page.reset() ? page.current() : page.current() - since;
        return behind > PAGE && (fromNothing || page.reset() || behind >= directory.size() / 4);
    }

    /**
     * Takes a whole copy from the service (read on a worker as it arrives), then says more wait: the pages after
     * it. A service that serves no copies is asked for pages from then on.
     */
    private Future<Boolean> wholeCopy(RulesClient.DirectoryPage page) {
        boolean wasFromNothing = fromNothing || page.reset();
        return client.copy()
                .compose(copy -> vertx.executeBlocking(() -> {
                    try (InputStream body = copy.open()) {
                        directory.takeCopy(body, wasFromNothing);
                        return true;
                    } catch (IOException | RuntimeException e) {
                        copy.abandon().run();
                        throw e;
                    }
                }, false))
                .map(taken -> {
                    next = null;
                    fromNothing = false;
                    saveSoon();
                    return true;
                })
                .recover(err -> {
                    if (err instanceof RulesClient.NoCopies) {
                        LOG.info("the rules service serves no whole copies of the directory: pages only");
                        copies = false;
                        return Future.succeededFuture(true);
                    }
                    return Future.failedFuture(err);
                });
    }

    /** Parses, checks and applies or gathers one page; blocking (a large page), so on a worker. Whether more wait. */
    private boolean take(byte[] body, RulesClient.DirectoryPage page, long since, long askedNanos) {
        long takenNanos = System.nanoTime();
        DirectoryChanges changes = codec.parseChanges(body);
        long parsedNanos = System.nanoTime();
        boolean more = apply(page, changes);
        LOG.debugf("directory page after %d: %d clients, %d tenants; answered in %d ms, parsed in %d ms, %s in %d ms",
                since, changes.clients().size(), changes.tenants().size(), (takenNanos - askedNanos) / 1_000_000,
                (parsedNanos - takenNanos) / 1_000_000, next != null ? "gathered" : "applied",
                (System.nanoTime() - parsedNanos) / 1_000_000);
        return more;
    }

    /** Applies or gathers one parsed page. Whether more wait. */
    private boolean apply(RulesClient.DirectoryPage page, DirectoryChanges changes) {
        if (page.reset()) {
            LOG.infof("the rules service renumbered its directory changes: rebuilding the copy (change %d here)",
                    directory.seq());
            fromNothing = true;
            next = directory.fromNothing();
        } else if (next == null && changes.more()) {
            next = directory.afterCopy(); // far behind: gathered apart, put in force whole
        }
        Directory.NextCopy building = next;
        if (building != null) {
            building.apply(changes);
            if (!changes.more() || building.fullAt(GATHER_MAX)) {
                directory.replace(building);
                next = null;
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
        next = null; // the next sync gathers again, after the copy in force (or from nothing)
        if (err instanceof RuleValidationException) {
            refusals.increment();
            LOG.errorf("a page of directory changes after %d was refused, the copy stays as it was: %s",
                    directory.seq(), err.getMessage());
        } else if (err instanceof RulesClient.NotServed refused) {
            retryAfter(refused);
        } else {
            LOG.debugf("directory changes unreachable: %s", err.toString());
        }
    }

    private void served() {
        int refusals = backoff.served();
        if (refusals > 0) {
            LOG.infof("the rules service serves this gateway's directory reads again, after %d refused", refusals);
        }
    }

    /**
     * A directory read the rules service refused is asked again with {@link Backoff}, not at the next poll or
     * event; one WARN per streak of refusals.
     */
    private void retryAfter(RulesClient.NotServed refused) {
        long waitMs = backoff.refused();
        if (backoff.firstRefusal()) {
            LOG.warnf("the rules service refused this gateway's directory read (%d): asking again in %d ms, backing"
                    + " off to %d ms", refused.status(), waitMs, Backoff.MAX_MS);
        } else {
            LOG.debugf("the rules service refused this gateway's directory read (%d): asking again in %d ms",
                    refused.status(), waitMs);
        }
        if (!stopped && retrying.compareAndSet(false, true)) {
            vertx.setTimer(waitMs, t -> {
                retrying.set(false);
                sync();
            });
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
