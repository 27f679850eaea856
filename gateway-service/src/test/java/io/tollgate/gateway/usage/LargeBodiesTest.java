package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/**
 * Bodies far larger than what a meter may hold, streamed from a few chunks sent again and again (the test never
 * holds them whole either): the meter must read them in memory of its own that does not grow with them, which the
 * bytes it allocates while reading show.
 */
class LargeBodiesTest {

    private static final Logger LOG = Logger.getLogger(LargeBodiesTest.class);

    private static final long MB = 1 << 20;
    /**
     * What reading one large body may allocate, the meter included: far below any body here, and below what a
     * meter allocating a few bytes per event of the stream, or per line, would.
     */
    private static final long ALLOCATION_BOUND = 64 * 1024;

    /** A body: its first chunk, one chunk again and again, and its last. */
    private record Body(Buffer first, Buffer repeated, long times, Buffer last) {

        Body(String first, String repeated, long bytes, String last) {
            this(Buffer.buffer(first), Buffer.buffer(repeated), bytes / Buffer.buffer(repeated).length(),
                    Buffer.buffer(last));
        }

        long length() {
            return first.length() + repeated.length() * times + last.length();
        }
    }

    /** A fresh meter's reading of {@code body}, checking what it allocated on the way. */
    private static Usage read(Supplier<UsageMeter> meters, MultiMap headers, Body body, String what) {
        Feed.read(meters, headers, "{}"); // loads the classes and makes the thread's scratch array first
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        long start = System.nanoTime();
        UsageMeter meter = meters.get();
        meter.head(200, headers);
        meter.body(body.first());
        for (long i = 0; i < body.times(); i++) {
            meter.body(body.repeated());
        }
        meter.body(body.last());
        Usage usage = meter.end();
        long nanos = System.nanoTime() - start;
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        LOG.infof("%s: %d MB read in %d ms (%.0f MB/s), %d bytes allocated", what, body.length() / MB,
                nanos / 1_000_000, body.length() / (double) MB / (nanos / 1e9), allocated);
        assertThat(allocated).as("bytes allocated reading %s", what).isLessThan(ALLOCATION_BOUND);
        return usage;
    }

    @Test
    void aLongStringBeforeTheUsageIsSkippedUnkept() {
        String text = "lorem ipsum \\\"dolor\\\" sit \\\\ amet \\u00e9 é 😀 ".repeat(1500);
        Body body = new Body("{\"id\": \"c1\", \"text\": \"", text, 50 * MB,
                "\", \"usage\": {\"total_tokens\": 4242}}");
        assertThat(body.length()).isGreaterThan(49 * MB);

        assertThat(read(() -> UsageMeters.json("/usage/total_tokens"), Feed.JSON, body, "a 50 MB string"))
                .isEqualTo(new Usage.Used(4242));
        assertThat(read(() -> UsageMeters.json("/text"), Feed.JSON, body, "a 50 MB string at the pointer"))
                .isInstanceOf(Usage.Invalid.class);
    }

    @Test
    void aHundredMegabyteBodyIsReadInBoundedMemory() {
        String element = "{\"id\": 12345, \"usage\": {\"total_tokens\": 1}, \"text\": \"lorem \\\"ipsum\\\" \\u00e9 é\","
                + " \"n\": [1.5e3, -2, 0, true, false, null], \"o\": {\"k\": [[], {}]}},\n";
        Body body = new Body("{\"object\": \"list\", \"data\": [", element.repeat(300), 100 * MB,
                "{\"last\": 0}], \"usage\": {\"prompt_tokens\": 9, \"total_tokens\": 4242}}");

        assertThat(read(() -> UsageMeters.json("/usage/total_tokens"), Feed.JSON, body, "a 100 MB JSON body"))
                .isEqualTo(new Usage.Used(4242));
        long elements = 300 * body.times() + 1;
        assertThat(read(() -> UsageMeters.json("/data/" + (elements - 2) + "/usage/total_tokens"), Feed.JSON, body,
                "an index far in")).isEqualTo(new Usage.Used(1));
        assertThat(read(() -> UsageMeters.json("/data/" + (elements - 1) + "/last"), Feed.JSON, body, "the last index"))
                .isEqualTo(new Usage.Used(0));
        assertThat(read(UsageMeters::responseBytes, Feed.JSON, body, "response bytes"))
                .isEqualTo(new Usage.Used(body.length()));
    }

    @Test
    void tenThousandEventsAreReadInBoundedMemory() {
        String event = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\","
                + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token \\\"quoted\\\"\"}}],\"usage\":null}\n\n";
        int cut = event.length() / 3; // every chunk ends inside an event
        Body stream = new Body(event.substring(0, cut), event.substring(cut) + event.substring(0, cut),
                10_000L * event.length(), event.substring(cut)
                        + "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"total_tokens\":4242}}\n\n"
                        + "data: [DONE]\n\n");
        assertThat(stream.times()).isEqualTo(10_000);

        assertThat(read(() -> UsageMeters.json("/usage/total_tokens"), Feed.EVENT_STREAM, stream, "10,000 events"))
                .isEqualTo(new Usage.Used(4242));
    }

    @Test
    void aHundredMegabyteEventStreamIsReadInBoundedMemory() {
        String event = "event: delta\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"lorem ipsum dolor\"}}],\r\n"
                + "data: \"usage\":null}\r\n: ping\r\n\r\n";
        Body stream = new Body("", event.repeat(500), 100 * MB,
                "data: {\"usage\":{\"total_tokens\":4242}}\r\n\r\ndata: [DONE]\r\n\r\n");

        assertThat(read(() -> UsageMeters.json("/usage/total_tokens"), Feed.EVENT_STREAM, stream, "event stream"))
                .isEqualTo(new Usage.Used(4242));
    }
}
