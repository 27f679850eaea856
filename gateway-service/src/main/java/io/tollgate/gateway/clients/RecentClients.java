package io.tollgate.gateway.clients;

/**
 * The callers one thread saw last, by API key, each for the state of the directory it was read from: a request
 * whose key came by recently pays for no digest, no directory lookup and no new counter keys (the same key
 * strings come back, their hashes kept), which is most of what counting by API key costs a request.
 * Direct-mapped, {@value #SLOTS} slots a thread: a collision, or a new state of the directory, costs only the work
 * it would have saved. It holds API keys in the gateway's memory, as the requests that carried them do; nothing of
 * it is written anywhere, and a key is compared in time that does not depend on where it differs.
 */
final class RecentClients {

    static final int SLOTS = 1024;

    private final String[] keys = new String[SLOTS];
    private final DirectoryClient[] callers = new DirectoryClient[SLOTS];

    /** The caller {@code apiKey} named in {@code copy}, when this thread read it there recently; else null. */
    DirectoryClient find(String apiKey, DirectoryCopy copy) {
        int slot = slot(apiKey);
        DirectoryClient known = callers[slot];
        return known != null && known.readFrom(copy) && sameKey(apiKey, keys[slot]) ? known : null;
    }

    /** Keeps {@code caller}, the caller {@code apiKey} names, in place of whatever had its slot. */
    void keep(String apiKey, DirectoryClient caller) {
        int slot = slot(apiKey);
        keys[slot] = apiKey;
        callers[slot] = caller;
    }

    private static int slot(String apiKey) {
        int h = apiKey.hashCode();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }

    /** Whether two keys are equal, looking at every character of equally long ones whatever they hold. */
    private static boolean sameKey(String a, String b) {
        if (b == null || a.length() != b.length()) {
            return false;
        }
        int diff = 0;
        for (int i = 0; i < a.length(); i++) {
            diff |= a.charAt(i) ^ b.charAt(i);
        }
        return diff == 0;
    }
}
