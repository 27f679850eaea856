package io.tollgate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.domain.Layers;

/**
 * The gateway's packages stand in layers (docs/architecture.md, "Layers"): a package uses only packages of the
 * layers below its own, never one beside it or above it. Read from the imports of the main sources, so an arrow
 * from a lower package to a higher one, or a package placed in no layer, fails the build.
 */
class LayeringTest {

    /** From the bottom up. */
    static final Layers LAYERS = new Layers(Path.of("src/main/java/io/tollgate/gateway"), "io.tollgate.gateway.",
            List.of(
                    List.of("config"),
                    List.of("key", "clients", "usage", "store"),
                    List.of("rules", "proxy"),
                    List.of("sync"),
                    List.of("limiter.decision"),
                    List.of("limiter.pipeline"),
                    List.of("limiter.rejection"),
                    List.of("limiter.guard"),
                    List.of("limiter.lease", "limiter.settlement"),
                    List.of("limiter.targets"),
                    List.of("limiter"),
                    List.of("warmup"),
                    List.of("http"),
                    List.of("admin")),
            Set.of());

    @Test
    void everyPackageUsesOnlyTheLayersBelowIt() throws IOException {
        assertThat(LAYERS.arrowsUpOrAcross()).as("imports of a package beside or above the importing one").isEmpty();
    }

    @Test
    void theLayersNameEveryPackageOnce() throws IOException {
        assertThat(LAYERS.named()).doesNotHaveDuplicates();
        assertThat(LAYERS.named()).as("packages in no layer, or layers of no package")
                .containsExactlyInAnyOrderElementsOf(LAYERS.packages());
    }
}
