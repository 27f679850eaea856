package io.tollgate.deploy;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;

/**
 * The property names a service reads, taken from its {@code @ConfigMapping} interfaces the way SmallRye Config
 * names them (kebab-case methods, nested groups, {@code Map} keys as {@code *}), and the environment variable
 * forms of those names.
 */
final class ConfigKeys {

    private final Set<String> properties = new TreeSet<>();

    ConfigKeys(Class<?>... mappings) {
        for (Class<?> mapping : mappings) {
            walk(mapping, mapping.getAnnotation(ConfigMapping.class).prefix());
        }
    }

    ConfigKeys with(String... quarkusProperties) {
        properties.addAll(Set.of(quarkusProperties));
        return this;
    }

    Set<String> properties() {
        return properties;
    }

    /** Whether an environment variable names one of the properties (SmallRye's env mapping rule). */
    boolean readsEnv(String variable) {
        return properties.stream().anyMatch(p -> envPattern(p).matcher(variable).matches());
    }

    private static Pattern envPattern(String property) {
        StringBuilder regex = new StringBuilder();
        for (String part : property.split("\\*", -1)) {
            if (regex.length() > 0) {
                regex.append("[A-Z0-9_]+");
            }
            regex.append(Pattern.quote(part.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT)));
        }
        return Pattern.compile(regex.toString());
    }

    private void walk(Class<?> group, String prefix) {
        for (Method method : group.getMethods()) {
            if (method.getParameterCount() != 0 || method.isDefault() || method.getDeclaringClass() == Object.class) {
                continue;
            }
            String name = method.isAnnotationPresent(WithParentName.class)
                    ? prefix
                    : prefix + "." + (method.isAnnotationPresent(WithName.class)
                            ? method.getAnnotation(WithName.class).value()
                            : kebab(method.getName()));
            property(method.getGenericReturnType(), name);
        }
    }

    private void property(Type type, String name) {
        if (type instanceof ParameterizedType generic) {
            Class<?> raw = (Class<?>) generic.getRawType();
            Type[] args = generic.getActualTypeArguments();
            if (raw == Optional.class) {
                property(args[0], name);
                return;
            }
            if (java.util.Map.class.isAssignableFrom(raw)) {
                property(args[1], name + ".*");
                return;
            }
            if (java.util.Collection.class.isAssignableFrom(raw) && args[0] instanceof Class<?> item && isGroup(item)) {
                walk(item, name + "[*]");
                return;
            }
            properties.add(name);
            return;
        }
        if (type instanceof Class<?> c && isGroup(c)) {
            walk(c, name);
            return;
        }
        properties.add(name);
    }

    private static boolean isGroup(Class<?> c) {
        return c.isInterface() && c.getName().startsWith("io.tollgate.");
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
