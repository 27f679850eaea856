package io.tollgate.rules.auth;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * A resource of the tests that declares no access, as a new endpoint might forget to: nobody may call it, an
 * admin token included ({@link EveryEndpointTest}).
 */
@Path("/api/v1/undeclared-probe")
public class UndeclaredProbe {

    @GET
    public String get() {
        return "served";
    }
}
