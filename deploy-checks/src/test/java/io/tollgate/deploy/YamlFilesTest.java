package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class YamlFilesTest {

    static Stream<Path> yamlFiles() {
        return Stream.of("k8s", "docker").flatMap(folder -> Repo.yamlFiles(folder).stream());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("yamlFiles")
    void parsesToAtLeastOneObject(Path file) {
        List<?> docs = Repo.documents(file);
        assertThat(docs).as(Repo.ROOT.relativize(file).toString()).isNotEmpty();
        assertThat(docs).allSatisfy(doc -> assertThat(((com.fasterxml.jackson.databind.JsonNode) doc).isObject()).isTrue());
    }
}
