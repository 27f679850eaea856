package io.tollgate.gateway.usage;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;

/**
 * The content codings a meter that reads the body decodes: {@code gzip} (and its alias {@code x-gzip}) and
 * {@code deflate}, through the JDK's zlib; {@code identity} is none. {@code br}, {@code zstd} and the others are
 * not decoded: the only maintained brotli decoder for Java binds a native library per platform, which the native
 * executables would have to carry. So a request a body-reading rule applies to asks its upstream for no other coding
 * ({@link #narrow}), and an answer in one all the same has no usage.
 */
final class ContentCodings {

    private static final Set<String> DECODED = Set.of("gzip", "x-gzip", "deflate", "identity");

    private ContentCodings() {
    }

    /**
     * What reads a body sent in {@code contentEncoding} (the header's values joined, null when absent) whose
     * content {@code content} reads: {@code content} itself when the body is not encoded, a decoder in front of it
     * when it is in one coding the gateway decodes, else a reader that finds no usage.
     */
    static ByteScanner reader(String contentEncoding, ByteScanner content, long maxDecodedBytes) {
        List<String> codings = codings(contentEncoding);
        codings.removeIf(coding -> coding.equals("identity"));
        if (codings.isEmpty()) {
            return content;
        }
        if (codings.size() == 1) {
            switch (codings.get(0)) {
                case "gzip", "x-gzip" -> {
                    return Inflating.gzip(content, codings.get(0), maxDecodedBytes);
                }
                case "deflate" -> {
                    return Inflating.deflate(content, codings.get(0), maxDecodedBytes);
                }
                default -> {
                }
            }
        }
        return new Undecoded(contentEncoding.strip());
    }

    /**
     * Leaves in the request's {@code Accept-Encoding} only the codings the gateway decodes ({@code *} goes too: it
     * would let the upstream choose any); a header left with none asks for {@code identity}. Without the header
     * the request is left as it is.
     */
    static void narrow(MultiMap requestHeaders) {
        List<String> sent = requestHeaders.getAll(HttpHeaders.ACCEPT_ENCODING);
        if (sent.isEmpty()) {
            return;
        }
        List<String> kept = new ArrayList<>();
        for (String value : sent) {
            for (String element : value.split(",")) {
                int parameters = element.indexOf(';');
                String coding = (parameters < 0 ? element : element.substring(0, parameters)).strip()
                        .toLowerCase(Locale.ROOT);
                if (DECODED.contains(coding)) {
                    kept.add(element.strip());
                }
            }
        }
        requestHeaders.set(HttpHeaders.ACCEPT_ENCODING, kept.isEmpty() ? "identity" : String.join(", ", kept));
    }

    /** The codings of a {@code Content-Encoding} value, in the order they were applied, in lower case. */
    private static List<String> codings(String contentEncoding) {
        List<String> codings = new ArrayList<>(1);
        if (contentEncoding == null) {
            return codings;
        }
        for (String coding : contentEncoding.split(",")) {
            if (!coding.isBlank()) {
                codings.add(coding.strip().toLowerCase(Locale.ROOT));
            }
        }
        return codings;
    }

    /** A body in a coding the gateway does not decode: it has no usage. */
    private record Undecoded(String contentEncoding) implements ByteScanner {

        @Override
        public void feed(byte[] bytes, int from, int to) {
        }

        @Override
        public Usage end() {
            return new Usage.Invalid(contentEncoding, "a Content-Encoding the gateway does not decode");
        }
    }
}
