package io.tollgate.gateway.admin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Space-Saving sketch (Metwally, Agrawal and El Abbadi, 2005): the heaviest keys of a stream in a fixed
 * number of counters. A new key arriving while every counter is taken evicts the key with the smallest count
 * and inherits that count as its {@code error}: a key's count exceeds its true count by at most its error, and
 * every key seen more than {@code total / capacity} times holds a counter. The counters form a min-heap on
 * their counts, so the smallest is found at once and an increment costs O(log capacity). Not thread-safe.
 */
final class SpaceSaving {

    /** One held key: {@code count} overestimates how often it was seen by at most {@code error}. */
    record Entry(String key, long count, long error) {
    }

    private final String[] keys;
    private final long[] counts;
    private final long[] errors;
    private final Map<String, Integer> slotOf;
    private int size;

    SpaceSaving(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        keys = new String[capacity];
        counts = new long[capacity];
        errors = new long[capacity];
        slotOf = new HashMap<>(capacity * 2);
    }

    /** Counts one occurrence of {@code key}. */
    void add(String key) {
        Integer slot = slotOf.get(key);
        if (slot != null) {
            counts[slot]++;
            siftDown(slot);
        } else if (size < keys.length) {
            place(size, key, 1, 0);
            siftUp(size++);
        } else {
            slotOf.remove(keys[0]); // the root holds the smallest count
            place(0, key, counts[0] + 1, counts[0]);
            siftDown(0);
        }
    }

    /** How many keys are held, at most the capacity. */
    int size() {
        return size;
    }

    /** The smallest count held when every counter is taken (a key not held was seen at most this often); else 0. */
    long floor() {
        return size == keys.length ? counts[0] : 0;
    }

    /** Every held key. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            out.add(new Entry(keys[i], counts[i], errors[i]));
        }
        return out;
    }

    /**
     * The {@code n} heaviest keys of two sketches taken together, heaviest first: counts and errors add up, and a
     * key one full sketch does not hold may have been seen there up to its floor, which goes to both.
     */
    static List<Entry> top(SpaceSaving a, SpaceSaving b, int n) {
        Map<String, Entry> merged = new HashMap<>();
        for (Entry e : a.entries()) {
            merged.put(e.key(), new Entry(e.key(), e.count() + b.floor(), e.error() + b.floor()));
        }
        for (Entry e : b.entries()) {
            merged.merge(e.key(), new Entry(e.key(), e.count() + a.floor(), e.error() + a.floor()),
                    (fromA, fromB) -> new Entry(e.key(), fromA.count() - b.floor() + e.count(),
                            fromA.error() - b.floor() + e.error()));
        }
        return merged.values().stream()
                .sorted(Comparator.comparingLong(Entry::count).reversed().thenComparing(Entry::key))
                .limit(n)
                .toList();
    }

    private void place(int slot, String key, long count, long error) {
        keys[slot] = key;
        counts[slot] = count;
        errors[slot] = error;
        slotOf.put(key, slot);
    }

    private void siftUp(int slot) {
        while (slot > 0) {
            int parent = (slot - 1) / 2;
            if (counts[parent] <= counts[slot]) {
                return;
            }
            swap(slot, parent);
            slot = parent;
        }
    }

    private void siftDown(int slot) {
        while (true) {
            int smallest = slot;
            for (int child = 2 * slot + 1; child <= 2 * slot + 2 && child < size; child++) {
                if (counts[child] < counts[smallest]) {
                    smallest = child;
                }
            }
            if (smallest == slot) {
                return;
            }
            swap(slot, smallest);
            slot = smallest;
        }
    }

    private void swap(int i, int j) {
        String key = keys[i];
        long count = counts[i];
        long error = errors[i];
        place(i, keys[j], counts[j], errors[j]);
        place(j, key, count, error);
    }
}
