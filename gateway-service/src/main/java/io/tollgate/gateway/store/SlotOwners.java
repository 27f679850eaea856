package io.tollgate.gateway.store;

import java.util.concurrent.atomic.AtomicBoolean;

import org.jboss.logging.Logger;

import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Which primary serves each hash slot of a Redis Cluster, as {@code CLUSTER SLOTS} last said: only a hint
 * for putting a loop turn's checks into one call per node. The Vert.x cluster client still routes every
 * call by its declared keys (and follows {@code MOVED}); when this map is stale, the node refuses a key of
 * the call that it does not serve before the script writes anything, and the sender asks for the map again.
 * (The client's own map and its {@code RedisCluster.groupByNodes} need the unwrapped cluster connection,
 * which the Quarkus client, wrapped for its metrics, does not hand out.)
 */
final class SlotOwners {

    private static final Logger LOG = Logger.getLogger(SlotOwners.class);

    private final Redis redis;
    private volatile String[] owners;
    private final AtomicBoolean asking = new AtomicBoolean();

    SlotOwners(Redis redis) {
        this(redis, null);
    }

    /** With a map already known (tests: a stale one). */
    SlotOwners(Redis redis, String[] owners) {
        this.redis = redis;
        this.owners = owners;
    }

    /** The hash slot of {@code key}. */
    static int slotOf(String key) {
        return HashSlot.of(key);
    }

    /** The {@code host:port} of the primary serving {@code slot}, or null when not known (yet). */
    String ownerOf(int slot) {
        String[] known = owners;
        if (known == null) {
            refresh();
            return null;
        }
        return known[slot];
    }

    /** The {@code host:port} of the primary serving {@code key}, or null when not known (yet). */
    String ownerOf(String key) {
        return ownerOf(slotOf(key));
    }

    /** Asks the cluster for its map again, unless a question is already out. */
    void refresh() {
        if (!asking.compareAndSet(false, true)) {
            return;
        }
        Future<Response> slots = redis.send(Request.cmd(Command.CLUSTER).arg("SLOTS"));
        slots.onComplete(reply -> {
            asking.set(false);
            if (reply.succeeded()) {
                owners = parse(reply.result());
            } else {
                LOG.debugf("CLUSTER SLOTS failed: %s", reply.cause());
            }
        });
    }

    /** {@code CLUSTER SLOTS}: per range [start, end, [host, port, id], replicas...]. */
    private static String[] parse(Response reply) {
        String[] out = new String[HashSlot.SLOTS];
        for (Response range : reply) {
            Response primary = range.get(2);
            String owner = primary.get(0).toString() + ":" + primary.get(1).toInteger();
            for (int slot = range.get(0).toInteger(); slot <= range.get(1).toInteger(); slot++) {
                out[slot] = owner;
            }
        }
        return out;
    }
}
