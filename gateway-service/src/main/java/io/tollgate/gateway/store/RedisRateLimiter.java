package io.tollgate.gateway.store;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.jboss.logging.Logger;

import io.tollgate.counter.CheckCall;
import io.tollgate.counter.CounterScripts;
import io.tollgate.counter.Decision;
import io.tollgate.counter.Policy;
import io.tollgate.gateway.limiter.Bucket;
import io.tollgate.gateway.limiter.RateLimiter;
import io.vertx.core.Future;
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
 * on standalone Redis as one call for all of them, on a Cluster as one pipelined write per node; off an
 * event loop each goes alone.
 */
final class RedisRateLimiter implements RateLimiter {

    private static final Logger LOG = Logger.getLogger(RedisRateLimiter.class);
    private static final CounterScripts.Script SCRIPT = CounterScripts.check();
    private static final long COST = 1;

    private final PinnedConnections redis;
    private final CoalescedChecks coalesced;
    private final SlotOwners owners;

    /**
     * @param coalesce send the checks of one loop turn together
     * @param cluster {@code redis} is a Cluster client: the checks of a turn go as one write per node, each
     * still its own call; else as one call for all
     */
    RedisRateLimiter(Redis redis, boolean coalesce, boolean cluster) {
        this.redis = new PinnedConnections(redis);
        this.owners = cluster ? new SlotOwners(redis) : null;
        this.coalesced = !coalesce
                ? null
                : new CoalescedChecks(cluster ? this::perNode : CoalescedChecks.together(this::run), this::run);
    }

    @Override
    public Future<List<Decision>> check(List<Bucket> buckets) {
        // plain loops: this runs for every limited request, and two streams cost more garbage than the call
        List<String> keys = new ArrayList<>(buckets.size());
        List<Policy> policies = new ArrayList<>(buckets.size());
        for (Bucket bucket : buckets) {
            keys.add(bucket.key());
            policies.add(bucket.policy());
        }
        CheckCall call = CheckCall.of(keys, policies, COST, OptionalLong.empty());
        return coalesced != null ? coalesced.check(call) : run(call).map(call::parse);
    }

    /** One call of the script: {@code EVALSHA}, and on {@code NOSCRIPT} the same call with the text. */
    private Future<List<Long>> run(CheckCall call) {
        return healed(redis.send(evalSha(call)), call);
    }

    /**
     * The integers of {@code call}'s reply, {@code sent} as {@code EVALSHA}; on {@code NOSCRIPT} (a restarted
     * node, a failover, {@code SCRIPT FLUSH}) the call again with the script's text ({@code EVAL}), which
     * loads it on the node that runs it.
     */
    private Future<List<Long>> healed(Future<Response> sent, CheckCall call) {
        return sent.recover(err -> {
            if (!isNoScript(err)) {
                return Future.failedFuture(err);
            }
            LOG.debugf("NOSCRIPT for %s: sending the script text once", call.keys().get(0));
            return redis.send(request(Command.EVAL, SCRIPT.text(), call));
        }).map(RedisRateLimiter::integers);
    }

    /**
     * The checks of one loop turn on a Cluster: one {@code EVALSHA} each, pipelined one write per node. A
     * node's batch fails whole when one reply is an error; on {@code NOSCRIPT} (the node lost the script)
     * each of its checks is sent again alone with the text, which loads the script there.
     */
    private List<Future<List<Long>>> perNode(List<CheckCall> calls) {
        List<Request> requests = new ArrayList<>(calls.size());
        List<String> keys = new ArrayList<>(calls.size());
        for (CheckCall call : calls) {
            requests.add(evalSha(call));
            keys.add(call.keys().get(0));
        }
        List<Future<Response>> replies = redis.sendByNode(requests, keys, owners);
        List<Future<List<Long>>> out = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            out.add(healed(replies.get(i), calls.get(i)));
        }
        return out;
    }

    private static Request evalSha(CheckCall call) {
        return request(Command.EVALSHA, SCRIPT.sha1(), call);
    }

    private static Request request(Command command, String script, CheckCall call) {
        Request request = Request.cmd(command).arg(script);
        for (String arg : call.evalArgs()) {
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
}
