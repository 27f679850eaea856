package io.tollgate.e2e;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;

/**
 * A client that wants more than its share, on the packaged fleet: one API key sends its request in every spelling
 * the demo backend (a Quarkus app, which decodes paths as common frameworks do) still serves as that request,
 * round robin over three gateways, plus spellings that cannot be read safely, a second copy of its key header and a
 * {@code Connection} header that names the key header (refused, so no gateway forwards the key's request without it).
 * The fleet admits the burst and no more, and the backend's own count for the key says the same. Requests go over
 * raw sockets, so no client library tidies them first.
 */
class HostileClientTest {

    private static final int BURST = 3;
    private static final List<String> SPELLINGS = List.of("/hostile/1", "/%68ostile/1", "/%68OSTILE/../hostile/1",
            "/./hostile/1", "/x/../hostile/1", "/x/%2e%2E/hostile/1", "//hostile//1", "/hostile;v=1/1",
            "/x/..;/hostile/1", "/hostile/%31", "/hostile/1/.", "/h%6fstile/1?a=../../b", "/hostile%2F1",
            "/%2e%2e/hostile/1", "/hostile/%C0%AE%C0%AE/1", "/hostile/1%00");
    private static final List<String> METHODS = List.of("GET", "get", "Get");

    private final Stack stack = SharedStack.get();

    @Test
    void everySpellingOverThreeGatewaysGetsTheBurstAndNoMore() throws IOException {
        stack.putRule("e2e.hostile", Rules.perApiKey("e2e.hostile", "/hostile/**", BURST, "1h", "closed"));
        Fleet.awaitEverywhere(stack, "e2e.hostile", "/hostile/probe", Duration.ofSeconds(5));
        String key = Fleet.freshKey("hostile");
        String other = Fleet.freshKey("hostile-other");

        Map<Integer, Integer> statuses = new TreeMap<>();
        Map<Integer, Integer> connectionShapes = new TreeMap<>();
        int sent = 0;
        for (String method : METHODS) {
            for (String path : SPELLINGS) {
                int gateway = sent++ % stack.gateways().size();
                int status = send(gateway, method, path, List.of("X-API-Key: " + key));
                statuses.merge(status, 1, Integer::sum);
                // the same request with a second key header: refused, whichever key a backend would read
                status = send(gateway, method, path, List.of("X-API-Key: " + other, "X-API-Key: " + key));
                statuses.merge(status, 1, Integer::sum);
                // the key named hop-by-hop, so that a gateway that dropped it would forward an anonymous request
                status = send(gateway, method, path, List.of("X-API-Key: " + key, "Connection: X-API-Key"));
                statuses.merge(status, 1, Integer::sum);
                connectionShapes.merge(status, 1, Integer::sum);
            }
        }

        assertThat(statuses.keySet()).as("answers by status %s", statuses).isSubsetOf(200, 400, 429);
        assertThat(connectionShapes.keySet()).as("a Connection header naming the key %s", connectionShapes)
                .containsOnly(400);
        assertThat(statuses.get(200)).as("allowed of %d (%s)", 3 * sent, statuses).isEqualTo(BURST);
        assertThat(stack.backendHits(key)).as("what the backend served the key").isEqualTo(BURST);
        assertThat(stack.backendHits(other)).as("what the backend served the second key").isZero();
    }

    /** One request, byte for byte as given, through gateway {@code index}; its status. */
    private int send(int index, String method, String target, List<String> headers) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(10_000);
            socket.connect(new InetSocketAddress("127.0.0.1", stack.gateways().get(index).port()), 10_000);
            StringBuilder request = new StringBuilder(method).append(' ').append(target)
                    .append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
            headers.forEach(h -> request.append(h).append("\r\n"));
            socket.getOutputStream().write(request.append("\r\n").toString().getBytes(ISO_8859_1));
            InputStream in = socket.getInputStream();
            StringBuilder status = new StringBuilder();
            for (int b = in.read(); b != '\n' && b >= 0; b = in.read()) {
                status.append((char) b);
            }
            in.readAllBytes(); // the connection closes after the answer
            return Integer.parseInt(status.toString().split(" ")[1]);
        }
    }
}
