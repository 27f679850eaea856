package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/** Feeds bodies to meters the way the proxy does: the head, then the body in chunks cut anywhere. */
final class Feed {

    static final MultiMap JSON = headers("Content-Type", "application/json");
    static final MultiMap EVENT_STREAM = headers("Content-Type", "text/event-stream; charset=utf-8");

    private Feed() {
    }

    static MultiMap headers(String... namesAndValues) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return headers;
    }

    /**
     * What a meter from {@code meters} reads from {@code body}, after checking that it reads the same fed whole,
     * byte by byte, cut in two at every place (short bodies) and cut in random pieces.
     */
    static Usage read(Supplier<UsageMeter> meters, MultiMap headers, String body) {
        return read(meters, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    /** As {@link #read(Supplier, MultiMap, String)}, for a body of any bytes (a compressed one). */
    static Usage read(Supplier<UsageMeter> meters, MultiMap headers, byte[] bytes) {
        Usage whole = read(meters.get(), headers, bytes, new int[0]);
        List<int[]> cutsList = new ArrayList<>();
        int[] everyByte = new int[Math.max(0, bytes.length - 1)];
        Arrays.setAll(everyByte, i -> i + 1);
        cutsList.add(everyByte);
        if (bytes.length <= 4096) {
            for (int at = 1; at < bytes.length; at++) {
                cutsList.add(new int[]{at});
            }
        }
        Random random = new Random(bytes.length);
        for (int round = 0; round < 20; round++) {
            cutsList.add(random.ints(random.nextInt(bytes.length / 2 + 1), 1, Math.max(2, bytes.length))
                    .sorted().distinct().toArray());
        }
        for (int[] cuts : cutsList) {
            assertThat(read(meters.get(), headers, bytes, cuts)).as("cut at %s", Arrays.toString(cuts))
                    .isEqualTo(whole);
        }
        return whole;
    }

    static Usage read(Supplier<UsageMeter> meters, String body) {
        return read(meters, JSON, body);
    }

    private static Usage read(UsageMeter meter, MultiMap headers, byte[] body, int[] cuts) {
        meter.head(200, headers);
        int from = 0;
        for (int cut : cuts) {
            if (cut > from && cut < body.length) {
                meter.body(Buffer.buffer(Arrays.copyOfRange(body, from, cut)));
                from = cut;
            }
        }
        meter.body(Buffer.buffer(Arrays.copyOfRange(body, from, body.length)));
        return meter.end();
    }
}
