package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.jboss.logging.Logger;

import io.tollgate.counter.CheckCall;
import io.tollgate.counter.CounterScripts;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Peek;
import io.tollgate.counter.PeekCall;
import io.tollgate.counter.Policy;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The shared store: ONE {@code EVALSHA} of the {@code check} script per call, on the shard that owns the
 * client's hash tag (standalone or Cluster, as {@code quarkus.redis.client-type} says). Time is Redis
 * {@code TIME}, never this gateway's clock.
 * <p>
 * On {@code NOSCRIPT} (a restarted node, a failover to a replica that never saw the script,
 * {@code SCRIPT FLUSH}) it retries once with {@code EVAL} and the full text: that loads the script on the
 * very node that owns the key and answers in the same round trip, where a separate {@code SCRIPT LOAD}
 * could land on another node of a cluster.
 * <p>
 * With {@code coalesce}, the checks an event loop asks for in one turn go together ({@link CoalescedChecks}):
 * on standalone Redis as one call for all of them, on a Cluster as one call per node; off an event loop each
 * goes alone.
 * <p>
 * {@link #peek} and {@link #reset} (the management operations) are one command each on the same connections.
 */
public final class RedisCounterStore implements CounterStore {

    private static final Logger LOG = Logger.getLogger(RedisCounterStore.class);
    private static final CounterScripts.Script SCRIPT = CounterScripts.check();
    private static final CounterScripts.Script ON_NODE = CounterScripts.checkOnNode();
    private static final CounterScripts.Script PEEK = CounterScripts.peek();
    /** The settlement that gives a slot back. */
    private static final List<Long> RELEASE = List.of(-1L);

    private final PinnedConnections redis;
    private final CoalescedChecks coalesced;
    private final SlotOwners owners;

    /**
     * @param coalesce send the checks of one loop turn together
     * @param cluster {@code redis} is a Cluster client: the checks of a turn go as one call per node; else as
     * one call for all
     */
    public RedisCounterStore(Redis redis, boolean coalesce, boolean cluster) {
        this(redis, coalesce, cluster ? new SlotOwners(redis) : null);
    }

    /** With a map of slots given (tests: a stale one); {@code owners} non-null means a Cluster. */
    RedisCounterStore(Redis redis, boolean coalesce, SlotOwners owners) {
        this(redis, coalesce, owners, CoalescedChecks.RIDE_NANOS);
    }

    /** As above, settlements riding with checks for up to {@code rideNanos} (tests: a long ride). */
    RedisCounterStore(Redis redis, boolean coalesce, SlotOwners owners, long rideNanos) {
        this.redis = new PinnedConnections(redis);
        this.owners = owners;
        this.coalesced = !coalesce
                ? null
                : new CoalescedChecks(owners != null ? this::perNode : CoalescedChecks.together(this::run), this::run,
                        rideNanos);
    }

    @Override
    public Future<List<Decision>> check(List<Bucket> buckets) {
        CheckCall call = call(buckets, null);
        return coalesced != null ? coalesced.check(call) : run(call).map(call::parse);
    }

    /**
     * One call of the check script that settles the buckets (a settlement per bucket), which rides with the loop's
     * next checks ({@link CoalescedChecks#ride}).
     */
    @Override
    public Future<List<Decision>> settle(List<Bucket> buckets, List<Long> deltas) {
        CheckCall call = call(buckets, deltas);
        return coalesced != null ? coalesced.ride(call) : run(call).map(call::parse);
    }

    /** Whether the calling event loop ticks for settlements waiting to ride (tests). */
    boolean ticking() {
        return coalesced != null && coalesced.ticking();
    }

    /** The call that checks {@code buckets}, or settles them by {@code deltas} when given. */
    private static CheckCall call(List<Bucket> buckets, List<Long> deltas) {
        // plain loops, and no lists built for the common single bucket: this runs for every limited request
        List<String> keys;
        List<Policy> policies;
        if (buckets.size() == 1) {
            keys = List.of(buckets.get(0).key());
            policies = List.of(buckets.get(0).policy());
        } else {
            keys = new ArrayList<>(buckets.size());
            policies = new ArrayList<>(buckets.size());
            for (Bucket bucket : buckets) {
                keys.add(bucket.key());
                policies.add(bucket.policy());
            }
        }
        return deltas == null
                ? CheckCall.of(keys, policies, OptionalLong.empty())
                : CheckCall.settle(keys, policies, deltas, OptionalLong.empty());
    }

    /**
     * Gives back the slot a {@code concurrency} check took (its policy carries the slot id, {@link Policy#slotId}):
     * a settlement of -1 of that key, which the script runs as {@code ZREM}, riding with the loop's next checks as
     * a settlement does.
     */
    @Override
    public Future<Void> releaseSlot(Bucket bucket) {
        return settle(List.of(bucket), RELEASE).mapEmpty();
    }

    /**
     * One call of the {@code peek} script for the bucket's one key, with Redis {@code TIME}: on a Cluster the
     * client sends it, as it sends a lone check, to the node that serves the key's slot (following
     * {@code MOVED}); {@code NOSCRIPT} is healed as for checks. Management traffic: never coalesced.
     */
    @Override
    public Future<Peek> peek(Bucket bucket) {
        PeekCall call = PeekCall.of(List.of(bucket.key()), List.of(bucket.policy()), OptionalLong.empty());
        return eval(PEEK, call.evalArgs()).map(reply -> call.parse(reply).get(0));
    }

    /** {@code DEL} of the bucket's key, routed as {@link #peek}: whether Redis held it. */
    @Override
    public Future<Boolean> reset(Bucket bucket) {
        return redis.send(Request.cmd(Command.DEL).arg(bucket.key())).map(deleted -> deleted.toLong() == 1);
    }

    /** One call of the check script. */
    private Future<List<Long>> run(CheckCall call) {
        return eval(SCRIPT, call.evalArgs());
    }

    /**
     * The integers of the reply to {@code script} with {@code args}, sent as {@code EVALSHA}; on
     * {@code NOSCRIPT} (a restarted node, a failover, {@code SCRIPT FLUSH}) the call again with the script's
     * text ({@code EVAL}), which loads it on the node that runs it.
     */
    private Future<List<Long>> eval(CounterScripts.Script script, List<String> args) {
        return redis.send(request(Command.EVALSHA, script.sha1(), args)).recover(err -> {
            if (!isNoScript(err)) {
                return Future.failedFuture(err);
            }
            LOG.debugf("NOSCRIPT for %s: sending the script text once", script.name());
            return redis.send(request(Command.EVAL, script.text(), args));
        }).map(RedisCounterStore::integers);
    }

    /**
     * The checks of one loop turn on a Cluster: grouped by the node that serves them (as {@link SlotOwners}
     * last heard), ONE call of {@code check_on_node} per node for its checks, a lone check one call of
     * {@code check}. A call declares the keys of the checks in its first check's slot (they route it; the
     * Vert.x client follows {@code MOVED} and {@code ASK}) and carries the others, which are never in that slot
     * ({@link CheckCall#evalArgsOnOneNode}). When the map was stale, the node finds a key it does not serve
     * and fails the call before writing anything (the script reads every bucket first): the map is asked for
     * again and those checks go one by one.
     */
    private void perNode(List<CheckCall> calls, List<Promise<List<Decision>>> replies) {
        if (calls.size() == 1) {
            CoalescedChecks.answer(run(calls.get(0)), calls, replies);
            return;
        }
        int[] slots = new int[calls.size()];
        Map<String, List<Integer>> byNode = new HashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            slots[i] = SlotOwners.slotOf(calls.get(i).keys().get(0));
            String owner = owners.ownerOf(slots[i]);
            byNode.computeIfAbsent(owner == null ? "?" + i : owner, n -> new ArrayList<>(4)).add(i);
        }
        for (List<Integer> group : byNode.values()) {
            // the checks in the first one's slot first, in order, then the others in order: checks of one
            // bucket share a slot, so each bucket's checks keep their order
            int slot = slots[group.get(0)];
            List<CheckCall> members = new ArrayList<>(group.size());
            List<Promise<List<Decision>>> answers = new ArrayList<>(group.size());
            for (int i : group) {
                if (slots[i] == slot) {
                    members.add(calls.get(i));
                    answers.add(replies.get(i));
                }
            }
            int declared = members.size();
            for (int i : group) {
                if (slots[i] != slot) {
                    members.add(calls.get(i));
                    answers.add(replies.get(i));
                }
            }
            if (members.size() == 1) {
                CoalescedChecks.answer(run(members.get(0)), members, answers);
            } else {
                onOneNode(members, answers, declared);
            }
        }
    }

    /**
     * {@code members}, whose keys all live on one node, as one call, the first {@code declared} (of one slot)
     * declared; when a key is not on that node, one by one, each answered by its own call.
     */
    private void onOneNode(List<CheckCall> members, List<Promise<List<Decision>>> answers, int declared) {
        Future<List<Long>> reply = eval(ON_NODE, CheckCall.together(members).evalArgsOnOneNode(declared));
        reply.onComplete(done -> {
            if (done.succeeded() || !isNotLocal(done.cause())) {
                CoalescedChecks.answer(reply, members, answers);
                return;
            }
            LOG.debugf("a key of %d checks was not on the node of %s: asking for the map again, sending them "
                    + "one by one", members.size(), members.get(0).keys().get(0));
            owners.refresh();
            for (int i = 0; i < members.size(); i++) {
                CoalescedChecks.answer(run(members.get(i)), members.subList(i, i + 1), answers.subList(i, i + 1));
            }
        });
    }

    private static Request request(Command command, String script, List<String> args) {
        Request request = Request.cmd(command).arg(script);
        for (String arg : args) {
            request.arg(arg);
        }
        return request;
    }

    private static List<Long> integers(Response reply) {
        List<Long> out = new ArrayList<>(reply.size());
        for (int i = 0; i < reply.size(); i++) {
            out.add(reply.get(i).toLong());
        }
        return out;
    }

    private static boolean isNoScript(Throwable err) {
        return err.getMessage() != null && err.getMessage().contains("NOSCRIPT");
    }

    /** A Cluster node's refusal of a key it does not serve, met by the script before it wrote anything. */
    private static boolean isNotLocal(Throwable err) {
        return err.getMessage() != null && err.getMessage().contains("non local key");
    }
}
