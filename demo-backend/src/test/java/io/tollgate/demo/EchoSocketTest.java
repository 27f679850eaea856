package io.tollgate.demo;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;

@QuarkusTest
class EchoSocketTest {

    private Vertx vertx;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        given().delete("/__hits").then().statusCode(204);
    }

    @AfterEach
    void stop() {
        vertx.close();
    }

    @Test
    void sendsEveryMessageBackAndCountsTheUpgradeAsAHit() throws Exception {
        WebSocket socket = vertx.createWebSocketClient()
                .connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(RestAssured.port)
                        .setURI(EchoSocket.PATH).addHeader("X-API-Key", "ak_42"))
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        CompletableFuture<String> text = new CompletableFuture<>();
        CompletableFuture<Buffer> binary = new CompletableFuture<>();
        socket.textMessageHandler(text::complete);
        socket.binaryMessageHandler(binary::complete);

        socket.writeTextMessage("hello");
        socket.writeBinaryMessage(Buffer.buffer(new byte[]{1, 2, 3}));

        assertThat(text.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
        assertThat(binary.get(10, TimeUnit.SECONDS).getBytes()).containsExactly(1, 2, 3);
        socket.close();
        given().get("/__hits").then().body("by_api_key.ak_42", equalTo(1));
    }

    @Test
    void aPlainGetOfThePathGetsTheJsonEcho() {
        given().get(EchoSocket.PATH).then().statusCode(200).body("path", equalTo(EchoSocket.PATH));
    }
}
