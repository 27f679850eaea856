package io.tollgate.gateway.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.FastThreadLocal;
import io.tollgate.counter.CounterKeys;
import io.tollgate.rules.domain.DirectoryChanges;
import io.tollgate.rules.domain.Effective;
import io.tollgate.rules.domain.KeySpec;
import io.tollgate.rules.domain.Rule;

/**
 * The gateway's copy of the client directory (docs/clients-plans-tenants.md): a full replica in a
 * compact form ({@link ClientTable}), so a request never waits on the network for it. The request path reads one
 * immutable state ({@link DirectoryCopy}) from a volatile field: no lock, no store or network call, one SHA-256 of
 * the API key when a rule needs the client (the same digest names its counter keys), and none for a key the thread
 * saw lately in the same state ({@link RecentClients}). Pages of changes are applied
 * off the event loop, one writer at a time, each published whole.
 */
@ApplicationScoped
public class Directory {

    private static final Logger LOG = Logger.getLogger(Directory.class);
    /** Rules worked out: every rule of a few versions in force at once. */
    private static final int RULES = 4096;

    /** The policies of each rule by plan, shared with every caller read from the directory. */
    private final RuleMemo<RulePolicies> policies = new RuleMemo<>(RULES);
    private final HeapRoom heap = HeapRoom.ofThisJvm();
    /** The size the heap was last found too small for; a warning again only once the directory doubled. */
    private int warnedAt;
    private volatile DirectoryCopy copy = DirectoryCopy.EMPTY;
    /** Each thread's callers of late, so a key that comes again is not digested and looked up again. */
    private final FastThreadLocal<RecentClients> recent = new FastThreadLocal<>() {

        @Override
        protected RecentClients initialValue() {
            return new RecentClients();
        }
    };
    private volatile boolean loaded;
    /** Guarded by this. */
    private DirectoryWriter writer = new DirectoryWriter(DirectoryCopy.EMPTY);

    /** Copies put in force whole: {@code whole} from the rules service, or pages gathered and {@code merged}. */
    private final Counter wholeCopies;
    private final Counter mergedCopies;

    public Directory(MeterRegistry registry) {
        this.wholeCopies = copies(registry, "whole");
        this.mergedCopies = copies(registry, "merged");
        registry.gauge("tollgate.directory.clients", this, d -> d.copy.clients().size());
        registry.gauge("tollgate.directory.seq", this, d -> d.copy.seq());
    }

    private static Counter copies(MeterRegistry registry, String how) {
        return Counter.builder("tollgate.directory.copies")
                .description("next copies of the directory put in force whole: a whole copy from the rules service"
                        + " (how=whole), or many pages of changes gathered and merged at once (how=merged)")
                .tag("how", how)
                .register(registry);
    }

    /** Whether {@code rule} counts by client of the directory: keyed {@code api_key} or {@code tenant}. */
    public static boolean applies(Rule rule) {
        KeySpec.Kind kind = rule.key().kind();
        return kind == KeySpec.Kind.API_KEY || kind == KeySpec.Kind.TENANT;
    }

    /**
     * The client {@code apiKey} names. The key is digested once: the digest finds the client in the directory and
     * is what its counter keys carry, so the key itself goes no further.
     */
    public DirectoryClient client(String apiKey) {
        DirectoryCopy now = copy;
        RecentClients recent = this.recent.get();
        DirectoryClient known = recent.find(apiKey, now);
        if (known != null) {
            return known;
        }
        byte[] digest = Digests.of(apiKey);
        Profile profile = now.clients().size() == 0 ? null : Digests.find(now.clients(), digest);
        PlanAndOverrides tenant = profile == null || profile.tenant() == null ? null : now.tenants().get(profile.tenant());
        DirectoryClient caller = new DirectoryClient(CounterKeys.digested(digest), profile, tenant, policies, now);
        recent.keep(apiKey, caller);
        return caller;
    }

    /** The rule's own policy (a rule keyed otherwise, or a key the directory does not know). */
    public Effective own(Rule rule) {
        return policies.get(rule, RulePolicies::new).own();
    }

    /** The last change the copy includes; 0 before any. */
    public long seq() {
        return copy.seq();
    }

    /** How many clients the copy holds. */
    public int size() {
        return copy.clients().size();
    }

    /** Whether the copy was loaded (from the rules service or the snapshot), or there was nothing to load. */
    public boolean loaded() {
        return loaded;
    }

    /** The gateway's start-up is over for the directory: it serves what it has. */
    public void markLoaded() {
        if (!loaded) {
            loaded = true;
            LOG.infof("client directory in force: %d clients, change %d", size(), seq());
        }
    }

    /** Applies one page of changes and publishes the result. Blocking: off the event loop. */
    public synchronized void apply(DirectoryChanges page) {
        copy = writer.apply(page);
        checkHeap();
    }

    /** The next copy, built from nothing by pages apart from the one in force, until {@link #replace}. */
    public NextCopy fromNothing() {
        return new NextCopy(0, true);
    }

    /**
     * The next copy, the one in force with pages of changes after its seq gathered apart, until {@link #replace}
     * merges them in at once.
     */
    public NextCopy afterCopy() {
        return new NextCopy(seq(), false);
    }

    /** Puts {@code next} in force in place of the copy. */
    public synchronized void replace(NextCopy next) {
        DirectoryCopy built;
        if (next.fromNothing) {
            built = next.pages.build();
            writer = new DirectoryWriter(built);
        } else {
            if (writer.copy().seq() != next.after) {
                throw new IllegalStateException("the copy moved while changes after " + next.after + " were gathered");
            }
            built = writer.merge(next.pages);
        }
        mergedCopies.increment(); // counted before it is seen: whoever sees the copy's seq sees it counted
        copy = built;
        LOG.infof("client directory %s: %d clients, change %d", next.fromNothing ? "rebuilt" : "caught up", size(),
                seq());
        checkHeap();
    }

    /** Writes the copy in force to {@code out}, naming {@code source}. Blocking. */
    public void save(OutputStream out, String source) throws IOException {
        DirectoryFile.write(copy, source, out);
    }

    /**
     * Puts the copy written in {@code in} (the gateway's snapshot) in force, every entry checked as strictly as one
     * from the rules service; the copy stays as it was when the file is unusable ({@link IOException} or
     * {@link IllegalArgumentException}). Blocking.
     *
     * @return the source the file names
     */
    public synchronized String restore(InputStream in) throws IOException {
        DirectoryFile.Read read = DirectoryFile.read(in);
        put(read.copy());
        return read.source();
    }

    /**
     * Puts a whole copy from the rules service in force, read from {@code in} and checked as {@link #restore} does,
     * unless it is older than the copy in force and {@code fromNothing} is false. Blocking.
     *
     * @return whether it was put in force
     */
    public boolean takeCopy(InputStream in, boolean fromNothing) throws IOException {
        DirectoryCopy read = DirectoryFile.read(in).copy(); // read before the lock: requests never wait on it
        synchronized (this) {
            if (!fromNothing && read.seq() < copy.seq()) {
                LOG.infof("a whole copy of the directory as of change %d came after change %d: not taken",
                        read.seq(), copy.seq());
                return false;
            }
            wholeCopies.increment(); // counted before it is seen: whoever sees the copy's seq sees it counted
            put(read);
        }
        LOG.infof("client directory copied whole: %d clients, change %d", size(), seq());
        return true;
    }

    private void put(DirectoryCopy next) {
        writer = new DirectoryWriter(next);
        copy = next;
        checkHeap();
    }

    /**
     * Warns when the heap is too small for the directory ({@link HeapRoom}): a heap that barely holds it is
     * collected whole again and again under load, at a cost in CPU to every request
     * ({@code bench/directory/throughput.sh} measures it).
     */
    private void checkHeap() {
        int clients = copy.clients().size();
        if (clients > 2 * warnedAt && !heap.holds(clients)) {
            warnedAt = clients;
            LOG.warnf("the client directory holds %d clients; the heap (-Xmx%dm, %d MB of it for long-lived data)"
                    + " is too small for them and the requests: give the gateway at least -Xmx%dm (its old"
                    + " generation needs 16 MB and 80 MB per million clients)", clients, heap.heapMb(),
                    heap.oldBytes() >> 20, heap.xmxMbFor(clients));
        }
    }

    /**
     * The next copy of the directory: pages of changes gathered apart from the copy in force ({@link GatheredPages}),
     * put in force whole by {@link #replace}.
     */
    public static final class NextCopy {

        private final long after;
        private final boolean fromNothing;
        private final GatheredPages pages;

        private NextCopy(long after, boolean fromNothing) {
            this.after = after;
            this.fromNothing = fromNothing;
            this.pages = new GatheredPages(after);
        }

        /** Gathers one page. */
        public void apply(DirectoryChanges page) {
            pages.apply(page);
        }

        /** The last change gathered; the seq it started after before any. */
        public long seq() {
            return pages.seq();
        }

        /** How many client changes it gathered. */
        public int changes() {
            return pages.changes();
        }

        /** Whether it is built on the copy in force and has gathered {@code max} client changes or more. */
        public boolean fullAt(int max) {
            return !fromNothing && pages.changes() >= max;
        }
    }
}
