package io.tollgate.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.tollgate.rules.domain.Layers;

/**
 * The rules service's packages stand in layers (docs/architecture.md, "Layers"): a package uses only packages of
 * the layers below its own, never one beside it or above it. Read from the imports of the main sources, as the
 * gateway's {@code LayeringTest} reads its own, so an arrow from a lower package to a higher one, or a package
 * placed in no layer, fails the build. The module below, rules-domain ({@code domain}), is open to every package.
 */
class LayeringTest {

    /** From the bottom up. */
    static final Layers LAYERS = new Layers(Path.of("src/main/java/io/tollgate/rules"), "io.tollgate.rules.",
            List.of(
                    List.of("config"),
                    List.of("store", "live"),
                    List.of("http"),
                    List.of("auth"),
                    List.of("api", "console")),
            Set.of("domain"));

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
