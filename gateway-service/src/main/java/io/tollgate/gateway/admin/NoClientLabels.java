package io.tollgate.gateway.admin;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkus.arc.DefaultBean;

/** No client has a label: the {@link ClientLabels} in force until a client directory provides its own. */
@DefaultBean
@ApplicationScoped
class NoClientLabels implements ClientLabels {

    @Override
    public String label(String digest) {
        return null;
    }
}
