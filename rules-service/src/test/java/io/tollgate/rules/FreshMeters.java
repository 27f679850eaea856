package io.tollgate.rules;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.Metrics;
import io.quarkus.runtime.ShutdownEvent;

/**
 * Gives each test application fresh meters. Quarkus tests restart the application in one JVM when a class
 * needs other test resources, and Micrometer's global registry outlives the application: Quarkus clears it
 * on a dev-mode reload, not between test applications. A gauge registered again under the same name then
 * stays bound to the stopped application's object, which Micrometer holds weakly, and reads NaN once a GC has
 * taken it. Clearing the registry as each test application stops lets the next one register its own.
 */
@ApplicationScoped
public class FreshMeters {

    void clear(@Observes ShutdownEvent stop) {
        Metrics.globalRegistry.clear();
    }
}
