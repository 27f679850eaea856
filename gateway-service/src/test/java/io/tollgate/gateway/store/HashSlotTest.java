package io.tollgate.gateway.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.tollgate.counter.CounterKeys;
import io.tollgate.counter.testing.RedisCluster;

/** Our CRC16 against a real Redis Cluster's {@code CLUSTER KEYSLOT}, for hash tags and their edge cases. */
class HashSlotTest {

    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = new RedisCluster(3, 0);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void agreesWithClusterKeyslotOnEdgeCasesOfHashTags() {
        for (String key : List.of("", "a", "{}", "{a", "a}", "}{a}", "{a}{b}", "{{a}}", "a{}b{c}", "{}{a}", "rl:x:{}:y",
                "rl:orders.write:{ak_42}", "rl:orders.write:{ak_42}:extra", "123456789", "ключ{ключ}", "😀{😀}")) {
            assertThat(HashSlot.of(key)).as("slot of \"%s\"", key).isEqualTo(cluster.slotOf(key));
        }
    }

    @Test
    void agreesWithClusterKeyslotOnRandomKeys() {
        Random random = new Random(19);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            StringBuilder client = new StringBuilder();
            int length = random.nextInt(40);
            for (int j = 0; j < length; j++) {
                client.append((char) (random.nextBoolean() ? 32 + random.nextInt(95) : 0x400 + random.nextInt(0x400)));
            }
            keys.add(CounterKeys.key("rule." + (i % 7), client.toString()));
            keys.add(client.toString());
        }
        for (String key : keys) {
            assertThat(HashSlot.of(key)).as("slot of \"%s\"", key).isEqualTo(cluster.slotOf(key));
        }
    }
}
