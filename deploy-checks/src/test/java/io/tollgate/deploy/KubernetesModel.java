package io.tollgate.deploy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

/**
 * Reads Kubernetes objects into fabric8's model classes, strictly: the model keeps fields it does not
 * know in "additional properties" instead of failing, so every object graph is walked and any such field
 * is reported with its path.
 */
final class KubernetesModel {

    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.ofEntries(
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Secret", Secret.class),
            Map.entry("v1/Service", Service.class),
            Map.entry("v1/Namespace", Namespace.class),
            Map.entry("apps/v1/Deployment", Deployment.class),
            Map.entry("apps/v1/StatefulSet", StatefulSet.class),
            Map.entry("batch/v1/Job", Job.class),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
            Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class));

    private KubernetesModel() {
    }

    static boolean isKubernetesObject(JsonNode doc) {
        return doc.has("apiVersion") && doc.has("kind") && !doc.path("kind").asText().equals("Kustomization");
    }

    /** The object as its model class; fails naming the kind when the kind is not one Tollgate uses. */
    static HasMetadata read(JsonNode doc) {
        String kind = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
            throw new IllegalArgumentException("unexpected kind " + kind);
        }
        try {
            return Repo.YAML.treeToValue(doc, type);
        } catch (Exception e) {
            throw new IllegalArgumentException("not a valid " + kind + ": " + e.getMessage(), e);
        }
    }

    /** The object of this kind and name in {@code k8s/base}; fails when there is none. */
    static HasMetadata baseObject(String kind, String name) {
        for (var file : Repo.yamlFiles("k8s/base")) {
            for (JsonNode doc : Repo.documents(file)) {
                if (isKubernetesObject(doc) && doc.path("kind").asText().equals(kind)
                        && doc.path("metadata").path("name").asText().equals(name)) {
                    return read(doc);
                }
            }
        }
        throw new AssertionError("no " + kind + " " + name + " in k8s/base");
    }

    /** Paths of every field the model did not recognise, e.g. {@code spec.template.spec.containers[0].prob}. */
    static List<String> unknownFields(Object model) {
        List<String> found = new ArrayList<>();
        walk(model, "", found);
        return found;
    }

    private static void walk(Object node, String path, List<String> found) {
        if (node == null) {
            return;
        }
        if (node instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> walk(value, path + "[" + key + "]", found));
            return;
        }
        if (!node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object value = invoke(getter, node);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra) {
                    extra.keySet().forEach(key -> found.add(join(path, String.valueOf(key))));
                }
            } else {
                walk(value, join(path, decapitalize(getter.getName().substring(3))), found);
            }
        }
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            return null;
        }
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static String decapitalize(String name) {
        return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }
}
