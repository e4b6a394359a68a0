package shop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Items in stock, by SKU. */
public class Inventory {
    private final Map<String, Integer> counts = new HashMap<>();
    private final List<Listener> listeners = new ArrayList<>();

    public interface Listener {
        void changed(String sku, int count);
    }

    public enum Level { EMPTY, LOW, OK }

    public void add(String sku, int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("n must be positive: " + n);
        }
        counts.merge(sku, n, Integer::sum);
        notifyAll(sku);
    }

    public Optional<Integer> count(String sku) {
        return Optional.ofNullable(counts.get(sku));
    }

    public Level level(String sku) {
        int n = counts.getOrDefault(sku, 0);
        switch (n) {
            case 0:
                return Level.EMPTY;
            case 1:
            case 2:
                return Level.LOW;
            default:
                return Level.OK;
        }
    }

    private void notifyAll(String sku) {
        for (Listener l : listeners) {
            l.changed(sku, counts.get(sku));
        }
        listeners.forEach(l -> System.out.printf("%s -> %d%n", sku, counts.get(sku)));
    }
}
