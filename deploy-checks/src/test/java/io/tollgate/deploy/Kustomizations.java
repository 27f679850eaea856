package io.tollgate.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What a kustomization folder refers to, resolved the way kustomize does for the fields Tollgate uses:
 * {@code resources} (files or folders holding a kustomization.yaml) and {@code patches[].path}.
 */
final class Kustomizations {

    /** An object's identity as kustomize matches patches: kind and name. */
    record Id(String kind, String name) {

        static Id of(JsonNode doc) {
            return new Id(doc.path("kind").asText(), doc.path("metadata").path("name").asText());
        }
    }

    private Kustomizations() {
    }

    static JsonNode kustomization(Path folder) {
        return Repo.document(Repo.ROOT.relativize(folder.resolve("kustomization.yaml")).toString());
    }

    static List<Path> resources(Path folder) {
        List<Path> paths = new ArrayList<>();
        kustomization(folder).path("resources").forEach(r -> paths.add(folder.resolve(r.asText()).normalize()));
        return paths;
    }

    static List<Path> patches(Path folder) {
        List<Path> paths = new ArrayList<>();
        kustomization(folder).path("patches").forEach(p -> paths.add(folder.resolve(p.path("path").asText()).normalize()));
        return paths;
    }

    /** Every object a kustomization builds from (before patches), through nested kustomizations. */
    static Set<Id> objects(Path folder) {
        Set<Id> ids = new java.util.LinkedHashSet<>();
        for (Path resource : resources(folder)) {
            if (Files.isDirectory(resource)) {
                ids.addAll(objects(resource));
            } else {
                Repo.documents(resource).forEach(doc -> ids.add(Id.of(doc)));
            }
        }
        return ids;
    }

    /** Whether any kustomization in k8s/ names this file as a patch. */
    static boolean isPatch(Path file) {
        return allFolders().stream().anyMatch(folder -> patches(folder).contains(file.normalize()));
    }

    static List<Path> allFolders() {
        return Repo.yamlFiles("k8s").stream()
                .filter(f -> f.getFileName().toString().equals("kustomization.yaml"))
                .map(Path::getParent)
                .collect(Collectors.toList());
    }
}
