package io.tollgate.rules.console;

import java.net.URI;
import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;

import io.quarkus.qute.TemplateInstance;
import io.tollgate.rules.auth.ConsolePage;
import io.vertx.ext.web.RoutingContext;

/**
 * The console's pages, each a shell whose script reads and writes through {@code /api/v1}; {@link ConsoleGate}
 * has made sure of the session before any of these runs.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
@ConsolePage
public class ConsolePages {

    /** The titles of the pages that take nothing from their path. */
    private static final Map<String, String> TITLES = Map.of("rules", "Rules", "import", "Import a rule set",
            "clients", "Clients", "live", "Live", "explain", "Explain a request");

    private final Pages pages;

    ConsolePages(Pages pages) {
        this.pages = pages;
    }

    @GET
    @Operation(hidden = true)
    public Response home() {
        return Response.seeOther(URI.create(Pages.HOME)).build();
    }

    @GET
    @Path("{page: rules|import|clients|live|explain}")
    @Operation(hidden = true)
    public TemplateInstance plain(@PathParam("page") String page, RoutingContext ctx) {
        return page(ctx, page, TITLES.get(page), page, Map.of());
    }

    @GET
    @Path("rules/new")
    @Operation(hidden = true)
    public TemplateInstance newRule(RoutingContext ctx) {
        return page(ctx, "editor", "New rule", "rules", Map.of());
    }

    @GET
    @Path("rules/{id}/edit")
    @Operation(hidden = true)
    public TemplateInstance editRule(@PathParam("id") String id, RoutingContext ctx) {
        return page(ctx, "editor", "Edit rule " + id, "rules", Map.of("rule-id", id));
    }

    @GET
    @Path("rules/{id}/history")
    @Operation(hidden = true)
    public TemplateInstance history(@PathParam("id") String id, RoutingContext ctx) {
        return page(ctx, "history", "History of rule " + id, "rules", Map.of("rule-id", id));
    }

    @GET
    @Path("tenants/{id}")
    @Operation(hidden = true)
    public TemplateInstance tenant(@PathParam("id") String id, RoutingContext ctx) {
        return page(ctx, "tenant", "Tenant " + id, "clients", Map.of("tenant-id", id));
    }

    private TemplateInstance page(RoutingContext ctx, String name, String title, String nav, Map<String, String> data) {
        return pages.page(ConsoleGate.session(ctx), name, title, nav, data);
    }
}
