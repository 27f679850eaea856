package io.tollgate.rules.auth;

import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.ApiKeys;
import io.tollgate.rules.http.Problem;
import io.tollgate.rules.http.ProblemException;
import io.vertx.ext.web.RoutingContext;

/**
 * The one check of who may call an endpoint, run once routing has chosen the endpoint that answers (by
 * {@link DeclaredAccess} for the REST resources and {@link Endpoints} for the Vert.x routes), so that no spelling of
 * a path reaches an endpoint its caller may not: an endpoint that declares no {@link Access} is refused, a scope
 * is checked against the caller {@link AdminTokens#callerOf} finds (the caller goes on in the routing context, see
 * {@link Caller}), a console page needs a session, and a client key in the query is refused whatever the endpoint.
 */
@ApplicationScoped
public class AccessCheck {

    private static final String SESSION = "tollgate.console.session";
    private static final String REFUSED = "tollgate.caller.refused";

    private final AdminTokens tokens;
    private final Sessions sessions;

    AccessCheck(AdminTokens tokens, Sessions sessions) {
        this.tokens = tokens;
        this.sessions = sessions;
    }

    /**
     * Whether the call may go on to an endpoint that declares {@code access}; false for a console page without a
     * session, which goes to the login form instead.
     *
     * @throws ProblemException 401, 400, 403 or 429 as {@link AdminTokens#callerOf} refuses a caller; 403 for a
     * caller whose scope does not cover the call, or for an endpoint that declares nothing; 400 {@code key-in-url}
     * for a caller admitted with a client key in the query, which no endpoint takes ({@link ApiKeys#inQuery})
     */
    boolean admits(RoutingContext ctx, Access access) {
        boolean admitted;
        try {
            admitted = admitted(ctx, access);
        } catch (ProblemException refused) {
            ctx.put(REFUSED, Boolean.TRUE); // a caller refused learns nothing of the fleet (HttpEdge)
            throw refused;
        }
        ProblemException keyInUrl = admitted ? ApiKeys.inQuery(ctx) : null;
        if (keyInUrl != null) {
            throw keyInUrl; // after the caller's check: the wrong side of the door meets the token first
        }
        return admitted;
    }

    /** Whether {@link #admits} refused this call's caller. */
    public static boolean refused(RoutingContext ctx) {
        return ctx.get(REFUSED) != null;
    }

    private boolean admitted(RoutingContext ctx, Access access) {
        if (access == null) {
            throw new ProblemException(new Problem("undeclared", "Endpoint declares no access", 403,
                    "this endpoint declares no scope, so nobody may call it"));
        }
        return switch (access) {
            case PUBLIC -> true;
            case CONSOLE_PAGE -> sessionOn(ctx);
            default -> scopeCovers(ctx, access);
        };
    }

    private boolean sessionOn(RoutingContext ctx) {
        Optional<Session> session = SessionCookie.of(ctx.request()).flatMap(sessions::find);
        session.ifPresent(s -> ctx.put(SESSION, s));
        return session.isPresent();
    }

    private boolean scopeCovers(RoutingContext ctx, Access access) {
        Caller caller = tokens.callerOf(ctx.request());
        Scope needed = access.needed(ctx.request().method());
        if (!Access.covers(caller.scope(), needed)) {
            throw new ProblemException(new Problem("insufficient-scope", "Token scope too weak", 403,
                    "the token of " + caller.actor() + " has the " + name(caller.scope()) + " scope; "
                            + ctx.request().method() + " " + ctx.normalizedPath() + " needs " + name(needed)));
        }
        caller.putOn(ctx);
        return true;
    }

    /** The session a console page's call carries, once {@link #admits} let it through. */
    public static Session session(RoutingContext ctx) {
        return ctx.get(SESSION);
    }

    private static String name(Scope scope) {
        return scope.name().toLowerCase(Locale.ROOT);
    }
}
