package io.tollgate.rules.console;

import java.net.URI;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.logging.Logger;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.AdminTokens;
import io.tollgate.rules.auth.ConsolePage;
import io.tollgate.rules.auth.Public;
import io.tollgate.rules.auth.Session;
import io.tollgate.rules.auth.SessionCookie;
import io.tollgate.rules.auth.Sessions;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.tollgate.rules.domain.Scope;
import io.vertx.ext.web.RoutingContext;

/**
 * The console's login (the admin token, posted once from the form, answered with the session cookie) and
 * logout (with the session's CSRF token, as a form field or header).
 */
@Path("/console")
public class LoginResource {

    private static final Logger LOG = Logger.getLogger(LoginResource.class);
    static final String CSRF_FIELD = "csrf_token";

    private final AdminTokens tokens;
    private final Sessions sessions;
    private final Pages pages;

    LoginResource(AdminTokens tokens, Sessions sessions, Pages pages) {
        this.tokens = tokens;
        this.sessions = sessions;
        this.pages = pages;
    }

    @GET
    @Path("login")
    @Public
    @Produces(MediaType.TEXT_HTML)
    @Operation(hidden = true)
    public Response form() {
        return Response.ok(pages.login(null)).build();
    }

    @POST
    @Path("login")
    @Public
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Produces(MediaType.TEXT_HTML)
    @Operation(hidden = true)
    public Uni<Response> login(@FormParam("token") String token, RoutingContext ctx) {
        if (token == null || token.isBlank()) {
            return answer(Response.status(401).entity(pages.login("Enter one of the admin tokens.")));
        }
        AdminTokenCheck.Verdict verdict = tokens.check(token.trim(), ctx.request());
        if (verdict.throttled()) {
            return answer(Response.status(429)
                    .header("Retry-After", verdict.retryAfterSeconds())
                    .entity(pages.login("Too many wrong tokens came from your address: try again in "
                            + verdict.retryAfterSeconds() + " s.")));
        }
        if (!verdict.accepted()) {
            LOG.info("console login refused: not a configured admin token");
            return answer(Response.status(401).entity(pages.login("That token is not one of the admin tokens.")));
        }
        if (verdict.scope() != Scope.ADMIN) {
            // a console session may write, so only an admin token opens one
            LOG.infof("console login of %s refused: its token's scope is not admin", verdict.actor());
            return answer(Response.status(403)
                    .entity(pages.login("That token cannot open the console: it needs the admin scope.")));
        }
        // a login never reuses a session: whatever id the browser held is dropped
        String held = SessionCookie.of(ctx.request()).orElse(null);
        return sessions.close(held)
                .chain(() -> sessions.open(verdict.actor()))
                .map(session -> {
                    LOG.infof("console login of %s", verdict.actor());
                    return Response.seeOther(URI.create(Pages.HOME))
                            .header(HttpHeaders.SET_COOKIE, SessionCookie.set(session.id(), ctx.request()))
                            .build();
                });
    }

    @POST
    @Path("logout")
    @ConsolePage
    @Consumes({MediaType.APPLICATION_FORM_URLENCODED, MediaType.WILDCARD})
    @Operation(hidden = true)
    public Uni<Response> logout(@FormParam(CSRF_FIELD) String field, @HeaderParam(SessionCookie.CSRF_HEADER) String header,
            RoutingContext ctx) {
        Session session = ConsoleGate.session(ctx);
        if (!session.csrfMatches(header != null ? header : field)) {
            throw AdminTokens.csrfRefused();
        }
        return sessions.close(session.id())
                .map(closed -> {
                    LOG.infof("console logout of %s", session.actor());
                    return Response.seeOther(URI.create(ConsoleGate.LOGIN))
                            .header(HttpHeaders.SET_COOKIE, SessionCookie.cleared(ctx.request()))
                            .build();
                });
    }

    private static Uni<Response> answer(Response.ResponseBuilder response) {
        return Uni.createFrom().item(response.build());
    }
}
