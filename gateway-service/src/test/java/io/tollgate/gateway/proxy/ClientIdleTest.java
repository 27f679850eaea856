package io.tollgate.gateway.proxy;

import static io.tollgate.gateway.support.GatewayControl.backendCount;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayResource;

/**
 * A client that stalls: its connection is closed after {@code quarkus.http.idle-timeout} (1.5 s here, 75 s
 * by default), and an upload it left midway reaches the backend as a broken request, freeing the backend
 * connection it held.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "store", value = "memory"),
        @ResourceArg(name = "idle-timeout", value = "1500ms")})
class ClientIdleTest {

    @Test
    void anUploadStalledMidwayIsCutAndTheBackendSeesItBroken() throws Exception {
        resetBackend();
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1048576\r\n\r\n".getBytes(US_ASCII));
            out.write(new byte[1024]);
            out.flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> backendCount("uploadsStarted") == 1);
            // the client sends nothing more
            assertThat(socket.getInputStream().read()).as("the gateway closes the stalled connection").isEqualTo(-1);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> backendCount("uploadsBroken") == 1);
    }

    @Test
    void anIdleKeepAliveConnectionIsClosed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /idle HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(US_ASCII));
            assertThat(io.tollgate.gateway.support.RawHttp.read(socket.getInputStream()).status()).isEqualTo(200);
            assertThat(socket.getInputStream().read()).as("closed once idle").isEqualTo(-1);
        }
    }
}
