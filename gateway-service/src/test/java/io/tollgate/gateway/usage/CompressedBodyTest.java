package io.tollgate.gateway.usage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;

import io.vertx.core.MultiMap;

/**
 * Compressed answers are read as they decompress, cut anywhere, in every form the codings allow; an answer that
 * decompresses past the bound, is not valid in its coding, or comes in a coding the gateway does not decode has no
 * usage; a request that a body-reading rule applies to asks only for the codings the gateway decodes.
 */
class CompressedBodyTest {

    private static final String ANSWER = """
            {"id": "cmpl-1", "choices": [{"message": {"content": "hello"}}],
             "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 40000}}""";
    private static final Supplier<UsageMeter> METERS = () -> UsageMeters.json("/usage/total_tokens");

    @Test
    void aGzipBodyIsReadAsItDecompresses() throws IOException {
        for (String coding : new String[]{"gzip", "x-gzip", "GZIP", "identity, gzip"}) {
            assertThat(Feed.read(METERS, json(coding), gzip(ANSWER))).as(coding).isEqualTo(new Usage.Used(40000));
        }
    }

    @Test
    void aGzipHeaderWithEveryOptionalFieldAndSeveralMembersAreRead() {
        byte[] member = gzipWithEveryHeaderField(ANSWER.substring(0, 70));
        byte[] second = gzipWithEveryHeaderField(ANSWER.substring(70));
        byte[] body = new byte[member.length + second.length];
        System.arraycopy(member, 0, body, 0, member.length);
        System.arraycopy(second, 0, body, member.length, second.length);
        assertThat(Feed.read(METERS, json("gzip"), body)).isEqualTo(new Usage.Used(40000));
        byte[] padded = java.util.Arrays.copyOf(body, body.length + 16);
        assertThat(Feed.read(METERS, json("gzip"), padded)).as("zeros after the last member end the content")
                .isEqualTo(new Usage.Used(40000));
    }

    @Test
    void aDeflateBodyIsReadInTheZlibFormatAndAsRawDeflate() throws IOException {
        ByteArrayOutputStream zlib = new ByteArrayOutputStream();
        try (DeflaterOutputStream out = new DeflaterOutputStream(zlib)) {
            out.write(ANSWER.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(Feed.read(METERS, json("deflate"), zlib.toByteArray())).isEqualTo(new Usage.Used(40000));
        assertThat(Feed.read(METERS, json("deflate"), rawDeflate(ANSWER))).isEqualTo(new Usage.Used(40000));
    }

    @Test
    void aGzipEventStreamIsReadEventByEvent() throws IOException {
        String stream = "data: {\"choices\": [{\"delta\": {\"content\": \"hi\"}}]}\n\n".repeat(50)
                + "data: {\"choices\": [], \"usage\": {\"total_tokens\": 700}}\n\ndata: [DONE]\n\n";
        assertThat(Feed.read(METERS, Feed.headers("Content-Type", "text/event-stream", "Content-Encoding", "gzip"),
                gzip(stream))).isEqualTo(new Usage.Used(700));
    }

    @Test
    void aBodyThatDecompressesPastTheBoundIsReadNoFurther() throws IOException {
        String padded = "{\"pad\": \"" + "0".repeat(2 * 1024 * 1024) + "\", \"u\": 5}";
        byte[] body = gzip(padded);
        assertThat(body.length).as("a small answer").isLessThan(10_000);
        Usage bounded = read(UsageMeters.json("/u", 1024 * 1024), json("gzip"), body);
        assertThat(bounded).isInstanceOf(Usage.Invalid.class);
        assertThat(((Usage.Invalid) bounded).why()).contains("tollgate.settle.max-decoded-size");
        assertThat(read(UsageMeters.json("/u", 4 * 1024 * 1024), json("gzip"), body)).isEqualTo(new Usage.Used(5));
    }

    @Test
    void aBodyNotValidInItsCodingOrInACodingNotDecodedHasNoUsage() throws IOException {
        byte[] plain = ANSWER.getBytes(StandardCharsets.UTF_8);
        assertThat(Feed.read(METERS, json("gzip"), plain)).isInstanceOf(Usage.Invalid.class);
        assertThat(Feed.read(METERS, json("deflate"), plain)).isInstanceOf(Usage.Invalid.class);
        byte[] zipped = gzip(ANSWER);
        for (String coding : new String[]{"br", "zstd", "gzip, gzip", "gzip, br"}) {
            assertThat(Feed.read(METERS, json(coding), zipped)).as(coding)
                    .isEqualTo(new Usage.Invalid(coding, "a Content-Encoding the gateway does not decode"));
        }
    }

    @Test
    void aStreamCutShortHasNoUsageButAHeaderReadWithTheHeadStands() throws IOException {
        UsageMeter json = METERS.get();
        json.head(200, json("gzip"));
        json.body(io.vertx.core.buffer.Buffer.buffer(gzip(ANSWER)));
        assertThat(json.cut()).isEqualTo(Usage.ABSENT);

        UsageMeter header = UsageMeters.header("X-Usage-Tokens");
        header.head(200, Feed.headers("X-Usage-Tokens", "350"));
        assertThat(header.cut()).isEqualTo(new Usage.Used(350));
    }

    @Test
    void aRequestABodyReadingRuleAppliesToAsksOnlyForCodingsTheGatewayDecodes() {
        assertThat(narrowed("gzip, deflate, br;q=1.0, zstd, *;q=0.1")).isEqualTo("gzip, deflate");
        assertThat(narrowed("br")).isEqualTo("identity");
        assertThat(narrowed("X-GZIP;q=0.5, identity")).isEqualTo("X-GZIP;q=0.5, identity");
        MultiMap none = MultiMap.caseInsensitiveMultiMap();
        METERS.get().request(none);
        assertThat(none.contains("Accept-Encoding")).as("no header: left as it is").isFalse();
        MultiMap headerRule = Feed.headers("Accept-Encoding", "br");
        UsageMeters.header("X-Usage-Tokens").request(headerRule);
        UsageMeters.responseBytes().request(headerRule);
        assertThat(headerRule.get("Accept-Encoding")).as("meters that read no body leave it").isEqualTo("br");
    }

    private static String narrowed(String acceptEncoding) {
        MultiMap headers = Feed.headers("Accept-Encoding", acceptEncoding);
        METERS.get().request(headers);
        return headers.get("Accept-Encoding");
    }

    private static MultiMap json(String coding) {
        return Feed.headers("Content-Type", "application/json", "Content-Encoding", coding);
    }

    /** One meter's reading of {@code body} fed in 64 KiB chunks, as a backend sends a large one. */
    private static Usage read(UsageMeter meter, MultiMap headers, byte[] body) {
        meter.head(200, headers);
        for (int at = 0; at < body.length; at += 65536) {
            meter.body(io.vertx.core.buffer.Buffer.buffer(
                    java.util.Arrays.copyOfRange(body, at, Math.min(body.length, at + 65536))));
        }
        return meter.end();
    }

    static byte[] gzip(String text) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    private static byte[] rawDeflate(String text) {
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        deflater.setInput(text.getBytes(StandardCharsets.UTF_8));
        deflater.finish();
        byte[] out = new byte[text.length() + 1024];
        int n = deflater.deflate(out);
        deflater.end();
        return java.util.Arrays.copyOf(out, n);
    }

    /** A gzip member with an extra field, a name, a comment and a header CRC (RFC 1952), as few servers send. */
    private static byte[] gzipWithEveryHeaderField(String text) {
        ByteArrayOutputStream member = new ByteArrayOutputStream();
        member.writeBytes(new byte[]{0x1F, (byte) 0x8B, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, (byte) 255});
        member.writeBytes(new byte[]{3, 0, 'a', 'b', 'c'});
        member.writeBytes("usage.json\0".getBytes(StandardCharsets.US_ASCII));
        member.writeBytes("a comment\0".getBytes(StandardCharsets.US_ASCII));
        member.writeBytes(new byte[]{0x12, 0x34});
        member.writeBytes(rawDeflate(text));
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(content);
        for (long v : new long[]{crc.getValue(), content.length}) {
            for (int i = 0; i < 4; i++) {
                member.write((int) (v >> (8 * i)) & 0xFF);
            }
        }
        return member.toByteArray();
    }
}
