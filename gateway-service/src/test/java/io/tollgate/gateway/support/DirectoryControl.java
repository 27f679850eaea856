package io.tollgate.gateway.support;

import static io.tollgate.gateway.support.GatewayControl.config;

import java.time.Duration;

import org.awaitility.Awaitility;

import io.restassured.RestAssured;

/** Drives the test rules server's client directory and watch stream, and reads what the gateway's copy holds. */
public final class DirectoryControl {

    private DirectoryControl() {
    }

    /**
     * Records directory changes ({@code {"tenants": [...], "clients": [{"key": raw key, "entry": {...}} | {"key",
     * "deleted": true}]}}) and pushes one {@code directory} event; does not wait.
     *
     * @return the sequence number of the last change
     */
    public static long push(String changes) {
        return rulesServer().body(changes).put("/__directory").then().statusCode(200).extract().jsonPath()
                .getLong("seq");
    }

    /** Records {@code changes} and waits until the gateway's copy includes them. */
    public static long apply(String changes) {
        long seq = push(changes);
        awaitSeq(seq, Duration.ofSeconds(10));
        return seq;
    }

    /** The change the gateway's copy is as of, as its readiness check says. */
    public static long seq() {
        Object seq = GatewayControl.management().get("/q/health/ready").jsonPath()
                .get("checks.find { it.name == 'directory' }.data.seq");
        return seq == null ? -1 : ((Number) seq).longValue();
    }

    /** Waits at most {@code bound} until the gateway's copy is as of {@code seq} (or a later change). */
    public static void awaitSeq(long seq, Duration bound) {
        Awaitility.await("gateway's directory as of change " + seq)
                .atMost(bound)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> seq() >= seq);
    }

    /** The rules service forgets every change (its database rebuilt empty). */
    public static void clear() {
        rulesServer().delete("/__directory").then().statusCode(200);
    }

    /** Cuts every watch stream and refuses new ones ({@code false}), or lets them in again. */
    public static void watch(boolean open) {
        rulesServer().put("/__watch?open=" + open).then().statusCode(200);
    }

    /** How many pages of directory changes the gateway asked for. */
    public static long reads() {
        return rulesServer().get("/__seen").jsonPath().getLong("directoryReads");
    }

    /** Watch streams open now. */
    public static int watchers() {
        return rulesServer().get("/__seen").jsonPath().getInt("watchers");
    }

    private static io.restassured.specification.RequestSpecification rulesServer() {
        return RestAssured.given().baseUri(config("tollgate.rules.url"));
    }
}
