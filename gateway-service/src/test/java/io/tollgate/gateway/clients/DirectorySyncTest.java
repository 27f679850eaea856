package io.tollgate.gateway.clients;

import static io.tollgate.gateway.clients.PlansTest.PLANS;
import static io.tollgate.gateway.clients.PlansTest.admitted;
import static io.tollgate.gateway.clients.PlansTest.awaitPolicy;
import static io.tollgate.gateway.clients.PlansTest.clients;
import static io.tollgate.gateway.clients.PlansTest.entry;
import static io.tollgate.gateway.support.GatewayControl.config;
import static io.tollgate.gateway.support.GatewayControl.install;
import static io.tollgate.gateway.support.GatewayControl.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.DirectoryControl;
import io.tollgate.gateway.support.GatewayResource;

/**
 * How the copy follows the rules service: by the poll when the watch stream is cut, from nothing again when the
 * service's changes are renumbered, and onto disk beside the rules snapshot. Polls every second ({@link GatewayResource}'s
 * default), in the gateway {@code HealthTest} and {@code ProxyTest} share.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "store", value = "memory"))
class DirectorySyncTest {

    private static final Duration POLL = Duration.ofSeconds(1);

    private String id;

    @BeforeEach
    void rules() {
        id = UUID.randomUUID().toString().substring(0, 8);
        install("[" + rule("plans.key", "/plans/**", "api_key", 5, "1h", 5, PLANS) + "]");
    }

    @AfterEach
    void watchOpen() {
        DirectoryControl.watch(true);
    }

    @Test
    void withTheWatchCutAnOverrideAppliedThenRemovedIsEnforcedWithinThePollInterval() {
        String key = "polled-" + id;
        DirectoryControl.apply(clients(entry(key, "{\"plan\":\"pro\"}")));
        DirectoryControl.watch(false);
        Awaitility.await("watch stream cut").atMost(Duration.ofSeconds(5)).until(() -> DirectoryControl.watchers() == 0);

        DirectoryControl.push(clients(entry(key, "{\"plan\":\"pro\",\"overrides\":{\"plans.key\":{\"limit\":0}}}")));
        // the poll interval (the poll may have just gone), and that poll's way on a machine busy with a build
        awaitPolicy(key, "\"plans.key\";q=0;w=3600", POLL.plusSeconds(1));
        DirectoryControl.push(clients(entry(key, "{\"plan\":\"pro\"}")));
        awaitPolicy(key, "\"plans.key\";q=10;w=3600", POLL.plusSeconds(1));
    }

    @Test
    void aServiceWhoseChangesWereRenumberedIsReadFromNothing() {
        String old = "old-" + id;
        DirectoryControl.apply(clients(entry(old, "{\"plan\":\"free\"}")));
        assertThat(admitted(old)).isEqualTo(2);
        long seqBefore = DirectoryControl.seq();

        DirectoryControl.clear();
        String fresh = "fresh-" + id;
        long seq = DirectoryControl.push(clients(entry(fresh, "{\"plan\":\"pro\"}")));
        assertThat(seq).as("the rebuilt service numbers from 1 again").isLessThan(seqBefore);
        Awaitility.await("copy rebuilt").atMost(Duration.ofSeconds(5)).until(() -> DirectoryControl.seq() == seq);
        awaitPolicy(fresh, "\"plans.key\";q=10;w=3600", Duration.ofSeconds(1));
        awaitPolicy(old, "\"plans.key\";q=5;w=3600", Duration.ofSeconds(1));
    }

    @Test
    void theCopyIsSavedBesideTheRulesSnapshot() {
        long seq = DirectoryControl.apply(clients(entry("saved-" + id, "{\"plan\":\"pro\"}"),
                entry("other-" + id, "{\"plan\":\"free\"}")));
        Path file = Path.of(config("tollgate.rules.snapshot") + ".directory");
        Awaitility.await("snapshot as of change " + seq)
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> savedSeq(file) >= seq);
        Directory saved = new Directory(new SimpleMeterRegistry());
        try (InputStream in = Files.newInputStream(file)) {
            assertThat(saved.restore(in)).isEqualTo(config("tollgate.rules.url"));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        assertThat(saved.client("saved-" + id).known()).isTrue();
        assertThat(saved.client("other-" + id).known()).isTrue();
    }

    private static long savedSeq(Path file) {
        if (!Files.isRegularFile(file)) {
            return -1;
        }
        try (InputStream in = Files.newInputStream(file)) {
            Directory read = new Directory(new SimpleMeterRegistry());
            read.restore(in);
            return read.seq();
        } catch (java.io.IOException e) {
            return -1;
        }
    }
}
