package io.tollgate.gateway.support;

import java.util.ArrayList;
import java.util.List;

/**
 * HTTP/1.1 request smuggling shapes (RFC 9112 §6, §5.2, §3.2), after the mutations of defparam/smuggler (its
 * {@code configs/default.py}, {@code exhaustive.py} and {@code doubles.py}), written again as a table: each
 * {@code Transfer-Encoding} gadget sent beside a {@code Content-Length}, in smuggler's two probes (CL.TE and TE.CL),
 * and whole requests for the other shapes: duplicate and signed {@code Content-Length}, obs-fold, bare LF and CR line
 * endings, absolute-form targets, {@code Host} missing, twice or malformed.
 * <p>
 * A request is {@code POST /orders/<n>} with {@code X-API-Key: {key}}; {@code {key}} is replaced by the test.
 */
public final class SmugglingCorpus {

    /** How the gateway takes a shape. */
    public enum Outcome {
        /**
         * Refused with a 400 or 501 (the problem {@link Shape#type}, or the HTTP server's own bare 400 when that is
         * null), the connection closed, nothing forwarded.
         */
        REFUSED,
        /**
         * Framed by its {@code Content-Length}, as forwarded to the backend: the backend receives exactly that many
         * bytes, and what follows them on the connection is the client's next request, checked as any other.
         */
        CONTENT_LENGTH
    }

    /**
     * A shape: a {@code Transfer-Encoding} {@code gadget} (header lines, without their last CRLF) sent in both probes,
     * or a whole {@code request} (head and body) sent as it is; how the gateway takes it, and the problem type of a
     * refusal (null: the HTTP server's own 400, before the gateway reads the request).
     */
    public record Shape(String name, String gadget, String request, Outcome outcome, String type) {

        @Override
        public String toString() {
            return name;
        }
    }

    /** The request smuggled in a probe's body: a second request the backend must never receive unchecked. */
    public static final String SMUGGLED = "POST /orders/smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\n"
            + "Content-Length: 0\r\n\r\n";

    private static final String FRAMING = "bad-framing";

    private SmugglingCorpus() {
    }

    /** The {@code Transfer-Encoding} gadgets smuggler names (configs/exhaustive.py), and the brief's TE.TE forms. */
    public static List<Shape> gadgets() {
        List<Shape> shapes = new ArrayList<>();
        refusedByServer(shapes, "plain", "Transfer-Encoding: chunked");
        shapes.add(new Shape("nameprefix1 (obs-fold onto X-Note)", " Transfer-Encoding: chunked", null,
                Outcome.CONTENT_LENGTH, null));
        refusedByServer(shapes, "tabprefix1", "Transfer-Encoding:\tchunked");
        refusedByServer(shapes, "tabprefix2", "Transfer-Encoding\t:\tchunked");
        refusedByServer(shapes, "spacejoin1", "Transfer Encoding: chunked");
        refused(shapes, "underjoin1", "Transfer_Encoding: chunked", FRAMING);
        refused(shapes, "Content_Length", "Content_Length: 0", FRAMING);
        refusedByServer(shapes, "smashed", "Transfer Encoding:chunked");
        refusedByServer(shapes, "space1", "Transfer-Encoding : chunked");
        refusedByServer(shapes, "valueprefix1", "Transfer-Encoding:  chunked");
        refusedByServer(shapes, "vertprefix1", "Transfer-Encoding:\u000bchunked");
        refusedByServer(shapes, "commaCow", "Transfer-Encoding: chunked, cow");
        refusedByServer(shapes, "cowComma", "Transfer-Encoding: cow, chunked");
        shapes.add(new Shape("contentEnc", "Content-Encoding: chunked", null, Outcome.CONTENT_LENGTH, null));
        refusedByServer(shapes, "linewrapped1 (obs-fold with a bare LF)", "Transfer-Encoding:\n chunked");
        refusedByServer(shapes, "obs-fold", "Transfer-Encoding:\r\n chunked");
        refused(shapes, "quoted", "Transfer-Encoding: \"chunked\"", FRAMING);
        refused(shapes, "aposed", "Transfer-Encoding: 'chunked'", FRAMING);
        refusedByServer(shapes, "lazygrep", "Transfer-Encoding: chunk");
        refusedByServer(shapes, "sarcasm", "TrAnSFer-EnCODinG: cHuNkeD");
        refusedByServer(shapes, "yelling", "TRANSFER-ENCODING: CHUNKED");
        refusedByServer(shapes, "0dsuffix", "Transfer-Encoding: chunked\r");
        refusedByServer(shapes, "tabsuffix", "Transfer-Encoding: chunked\t");
        refusedByServer(shapes, "revdualchunk", "Transfer-Encoding: cow\r\nTransfer-Encoding: chunked");
        refusedByServer(shapes, "two TE lines, chunked twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked");
        refusedByServer(shapes, "0dspam", "Transfer\r-Encoding: chunked");
        refused(shapes, "nested", "Transfer-Encoding: cow chunked bar", FRAMING);
        refused(shapes, "spaceFF", "Transfer-Encoding:\u00ffchunked", FRAMING);
        refused(shapes, "NBSP before chunked", "Transfer-Encoding:\u00a0chunked", FRAMING);
        refused(shapes, "accentCH", "Transfer-Encoding: ch\u0096nked", FRAMING);
        refusedByServer(shapes, "accentTE", "Transf\u0082r-Encoding: chunked");
        refusedByServer(shapes, "x-rout (bare CR)", "X: X\rTransfer-Encoding: chunked");
        refusedByServer(shapes, "x-nout (bare LF)", "X: X\nTransfer-Encoding: chunked");
        refused(shapes, "xchunked", "Transfer-Encoding: xchunked", FRAMING);
        refusedByServer(shapes, "identity, chunked", "Transfer-Encoding: identity, chunked");
        refusedByServer(shapes, "chunked, identity", "Transfer-Encoding: chunked, identity");
        return shapes;
    }

    /**
     * smuggler's byte mutations (configs/exhaustive.py: midspace, postspace, prespace, endspace) for the bytes parsers
     * are known to read apart: NUL's neighbour 0x01, backspace, the whitespace and line-ending controls (HT, LF, VT, FF,
     * CR), 0x1f, the space, DEL, and above ASCII 0x80, NEL (0x85), NBSP (0xa0) and 0xff. smuggler tries every control
     * byte and every byte from 0x7f; the rest read as these do (Netty refuses a control byte in a field, and the
     * gateway reads a coding that is not exactly a token it knows as unknown). Each is refused or framed by its
     * {@code Content-Length}, as the test checks of every shape; no outcome is written down for each.
     */
    public static List<Shape> byteMutations() {
        List<Shape> shapes = new ArrayList<>();
        for (int b : List.of(0x01, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1f, 0x20, 0x7f, 0x80, 0x85, 0xa0, 0xff)) {
            char c = (char) b;
            String hex = String.format("%02x", b);
            shapes.add(new Shape("midspace-" + hex, "Transfer-Encoding:" + c + "chunked", null, null, null));
            shapes.add(new Shape("postspace-" + hex, "Transfer-Encoding" + c + ": chunked", null, null, null));
            shapes.add(new Shape("prespace-" + hex, c + "Transfer-Encoding: chunked", null, null, null));
            shapes.add(new Shape("endspace-" + hex, "Transfer-Encoding: chunked" + c, null, null, null));
        }
        return shapes;
    }

    /** Whole requests: Content-Length's spellings, obs-fold, line endings, request targets, Host. */
    public static List<Shape> requests() {
        List<Shape> shapes = new ArrayList<>();
        String post = "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\n";
        String hello = "\r\nhello";
        for (String length : List.of("+5", "-1", "5, 5", "5,5", "0x5", "5.0", "1e1", "", "99999999999999999999")) {
            shapes.add(new Shape("Content-Length: " + length, null, post + "Content-Length: " + length + "\r\n" + hello,
                    Outcome.REFUSED, null));
        }
        shapes.add(new Shape("Content-Length twice, alike", null, post + "Content-Length: 5\r\nContent-Length: 5\r\n"
                + hello, Outcome.REFUSED, null));
        shapes.add(new Shape("Content-Length twice, unalike", null, post + "Content-Length: 5\r\nContent-Length: 6\r\n"
                + hello + "X", Outcome.REFUSED, null));
        shapes.add(new Shape("Content-Length : 5", null, post + "Content-Length : 5\r\n" + hello, Outcome.REFUSED,
                null));
        shapes.add(new Shape("Content-Length: 05", null, post + "Content-Length: 05\r\n" + hello,
                Outcome.CONTENT_LENGTH, null));
        shapes.add(new Shape("obs-fold in a header", null, post + "X-Note: a\r\n b\r\nContent-Length: 5\r\n" + hello,
                Outcome.CONTENT_LENGTH, null));
        shapes.add(new Shape("obs-fold in the key header", null, "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-API-Key: {key}\r\n\tfolded\r\nContent-Length: 5\r\n" + hello, Outcome.CONTENT_LENGTH, null));
        shapes.add(new Shape("bare LF line endings", null, "POST /orders/1 HTTP/1.1\nHost: 127.0.0.1\nX-API-Key: {key}\n"
                + "Content-Length: 5\n\nhello", Outcome.REFUSED, null));
        shapes.add(new Shape("a bare LF among CRLF", null, "POST /orders/1 HTTP/1.1\r\nHost: 127.0.0.1\nX-API-Key: "
                + "{key}\r\nContent-Length: 5\r\n" + hello, Outcome.REFUSED, null));
        shapes.add(new Shape("a bare CR", null, "POST /orders/1 HTTP/1.1\rHost: 127.0.0.1\r\nX-API-Key: {key}\r\n"
                + "Content-Length: 5\r\n" + hello, Outcome.REFUSED, null));
        for (String target : List.of("http://127.0.0.1/orders/1", "http://forged.example/orders/1",
                "https://127.0.0.1/orders/1")) {
            shapes.add(new Shape("absolute-form " + target, null, post.replace("/orders/1", target)
                    + "Content-Length: 5\r\n" + hello, Outcome.CONTENT_LENGTH, null));
        }
        shapes.add(new Shape("absolute-form without Host", null, "POST http://127.0.0.1/orders/1 HTTP/1.1\r\n"
                + "X-API-Key: {key}\r\nContent-Length: 5\r\n" + hello, Outcome.REFUSED, "bad-host"));
        shapes.add(new Shape("a target that is not a path", null, post.replace("/orders/1", "orders/1")
                + "Content-Length: 5\r\n" + hello, Outcome.REFUSED, "bad-path"));
        shapes.add(new Shape("no Host", null, "POST /orders/1 HTTP/1.1\r\nX-API-Key: {key}\r\nContent-Length: 5\r\n"
                + hello, Outcome.REFUSED, "bad-host"));
        shapes.add(new Shape("no Host in HTTP/1.0", null, "POST /orders/1 HTTP/1.0\r\nX-API-Key: {key}\r\n"
                + "Content-Length: 5\r\n" + hello, Outcome.CONTENT_LENGTH, null));
        for (String host : List.of("forged example", "a, b", "forged@127.0.0.1")) {
            shapes.add(new Shape("Host: " + host, null, post.replace("127.0.0.1", host) + "Content-Length: 5\r\n"
                    + hello, Outcome.REFUSED, "bad-host"));
        }
        shapes.add(new Shape("Host twice", null, post + "Host: forged.example\r\nContent-Length: 5\r\n" + hello,
                Outcome.REFUSED, "ambiguous-host"));
        return shapes;
    }

    private static void refusedByServer(List<Shape> shapes, String name, String gadget) {
        shapes.add(new Shape(name, gadget, null, Outcome.REFUSED, null));
    }

    private static void refused(List<Shape> shapes, String name, String gadget, String type) {
        shapes.add(new Shape(name, gadget, null, Outcome.REFUSED, type));
    }
}
