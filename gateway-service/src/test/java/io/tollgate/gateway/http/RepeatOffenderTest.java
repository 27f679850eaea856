package io.tollgate.gateway.http;

import static io.tollgate.gateway.support.GatewayControl.backendHits;
import static io.tollgate.gateway.support.GatewayControl.metric;
import static io.tollgate.gateway.support.GatewayControl.port;
import static io.tollgate.gateway.support.GatewayControl.resetBackend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.ErrorLines;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawH2;

/**
 * A peer whose HTTP/2 connections are closed for flooding more than {@code repeat-offenders.max-closes} times (here
 * once) has its next connections closed at their first request, unserved and counted, for the penalty (here 3 s), while
 * another address is served; then it is served again. Real frames on real sockets from two loopback addresses.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = {@ResourceArg(name = "repeat-offenders", value = "on"),
        @ResourceArg(name = "repeat-offenders.max-closes", value = "1"),
        @ResourceArg(name = "repeat-offenders.penalty", value = "3s")})
class RepeatOffenderTest {

    private static final String ATTACKER = "127.0.0.2";
    private static final String REFUSED = "tollgate_refused_total{reason=\"repeat-offender\"}";

    @Test
    void aPeerClosedForFloodingTwiceIsRefusedUntilItsPenaltyEnds() throws Exception {
        resetBackend();
        double refusedBefore = metric(REFUSED);
        try (ErrorLines warnings = ErrorLines.collect(Level.WARNING)) {
            try (RawH2 raw = new RawH2(port(), ATTACKER)) {
                RawH2.Flood flood = raw.rapidReset("/anything/flood", List.of(), 5_000);
                assertThat(flood.goAway()).as("the first close: a rapid reset").isNotNull()
                        .extracting(RawH2.Frame::code).isEqualTo(RawH2.ENHANCE_YOUR_CALM);
            }
            try (RawH2 raw = new RawH2(port(), ATTACKER)) {
                assertThat(raw.get("/anything/first", List.of()).status()).as("not yet penalised").isEqualTo(200);
                RawH2.Flood flood = raw.continuationFlood(16_384, 32L * 1024 * 1024);
                assertThat(flood.goAway()).as("the second close: a header block past its bound").isNotNull()
                        .extracting(RawH2.Frame::code).isEqualTo(RawH2.PROTOCOL_ERROR);
            }
            long hits = backendHits();
            try (RawH2 raw = new RawH2(port(), ATTACKER)) {
                raw.open(raw.pseudoHeaders("GET", "/anything/refused"), true);
                List<RawH2.Frame> frames = raw.framesFor(Duration.ofSeconds(5));
                assertThat(frames).as("closed at its first request, unanswered").extracting(RawH2.Frame::type)
                        .doesNotContain(0x1).last().isEqualTo(-1);
            }
            assertThat(metric(REFUSED) - refusedBefore).as("the refused connection, counted").isEqualTo(1);
            assertThat(backendHits()).as("nothing of it reached the backend").isEqualTo(hits);
            try (RawH2 raw = new RawH2(port(), ATTACKER)) {
                // the wrong side: a forwarded address names the peer only through a trusted proxy, never here
                List<String[]> spoofed = new ArrayList<>(raw.pseudoHeaders("GET", "/anything/spoofed"));
                spoofed.add(new String[]{"x-forwarded-for", "127.0.0.1"});
                raw.open(spoofed, true);
                assertThat(raw.framesFor(Duration.ofSeconds(5))).as("a spoofed X-Forwarded-For, refused the same")
                        .extracting(RawH2.Frame::type).doesNotContain(0x1).last().isEqualTo(-1);
            }
            assertThat(metric(REFUSED) - refusedBefore).as("both refused connections, counted").isEqualTo(2);
            assertThat(backendHits()).as("nothing of them reached the backend").isEqualTo(hits);
            try (RawH2 other = new RawH2(port())) {
                assertThat(other.get("/anything/other", List.of()).status()).as("another address is served")
                        .isEqualTo(200);
            }
            assertThat(warnings.lines()).as("one line for the penalty").filteredOn(line -> line.contains("refused for"))
                    .hasSize(1).allMatch(line -> line.startsWith(FloodGuard.class.getName()));
        }
        // a refused connection's read fails (GOAWAY, then the close): polled again until one is served
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .untilAsserted(() -> {
                    try (RawH2 raw = new RawH2(port(), ATTACKER)) {
                        assertThat(raw.get("/anything/after", List.of()).status())
                                .as("served once the penalty ends").isEqualTo(200);
                    }
                });
    }
}
