"""Cross-file tasks in Java, C and Rust: the edit is in one file and what it needs (a helper, a constant,
an error type, an enum value, a signature or its units) is in another; `--write` turns them into langs.jsonl.
"""

from __future__ import annotations

from bench.crossfile.authoring import collector

TASKS: list[dict] = []
java, c, rust = collector(TASKS, "java", "c", "rust")


def cargo(name: str) -> str:
    return f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'


# ================================================================ Java

# ---------------------------------------------------------------- a formatter with (currency, cents)

java(
    id="java-cart-total-money-format",
    files={
        "src/main/java/com/acme/money/Money.java": r'''package com.acme.money;

import java.util.Locale;

/** Formatting of amounts held as minor units (cents), shared by the shop and invoicing. */
public final class Money {
    private Money() {}

    /**
     * Formats an amount for display: format("EUR", 123456) is "1,234.56 EUR".
     *
     * @param currency   ISO 4217 code, printed after the number
     * @param minorUnits the amount in cents; negative amounts get a leading minus
     */
    public static String format(String currency, long minorUnits) {
        String sign = minorUnits < 0 ? "-" : "";
        long abs = Math.abs(minorUnits);
        return String.format(Locale.ROOT, "%s%,d.%02d %s", sign, abs / 100, abs % 100, currency);
    }

    /** Parses "12.50" into 1250 cents; used by the admin price editor. */
    public static long parseCents(String text) {
        return Math.round(Double.parseDouble(text.trim()) * 100);
    }
}
''',
        "src/main/java/com/acme/shop/Cart.java": r'''package com.acme.shop;

import java.util.ArrayList;
import java.util.List;

/** A shopping cart; every line is priced in the cart's currency. */
public class Cart {
    private final String currency;
    private final List<long[]> lines = new ArrayList<>(); // {unitPriceCents, quantity}

    public Cart(String currency) {
        this.currency = currency;
    }

    public void add(long unitPriceCents, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive");
        }
        lines.add(new long[] {unitPriceCents, quantity});
    }

    public long totalCents() {
        long total = 0;
        for (long[] line : lines) {
            total += line[0] * line[1];
        }
        return total;
    }

    /** What the checkout page shows next to "Total". */
    public String totalLabel() {
        return currency + " " + (totalCents() / 100.0);
    }
}
''',
    },
    target="src/main/java/com/acme/shop/Cart.java",
    instruction="The checkout total shows things like 'EUR 1234.5'. Make totalLabel use our money formatter instead.",
    edit=[["import java.util.ArrayList;\n", "import com.acme.money.Money;\nimport java.util.ArrayList;\n"],
          ['        return currency + " " + (totalCents() / 100.0);\n',
           "        return Money.format(currency, totalCents());\n"]],
    test=r'''import com.acme.money.Money;
import com.acme.shop.Cart;

public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        Cart cart = new Cart("EUR");
        cart.add(61725, 2);
        cart.add(5, 1);
        String got = cart.totalLabel();
        check(got.equals(Money.format("EUR", 123455)), got);
        check(got.equals("1,234.55 EUR"), got);
        Cart small = new Cart("GBP");
        small.add(99, 3);
        check(small.totalLabel().equals("2.97 GBP"), small.totalLabel());
    }
}
''',
)

# ---------------------------------------------------------------- an exception with (sku, available, requested)

java(
    id="java-warehouse-insufficient-stock",
    files={
        "src/main/java/com/acme/inventory/errors/StockException.java": r'''package com.acme.inventory.errors;

/** Errors raised by stock operations; the API maps them to 404 and 409 responses. */
public class StockException extends RuntimeException {
    private final String sku;

    protected StockException(String sku, String message) {
        super(message);
        this.sku = sku;
    }

    public String sku() {
        return sku;
    }

    /** The SKU is not stocked at all. */
    public static final class UnknownSku extends StockException {
        public UnknownSku(String sku) {
            super(sku, "unknown SKU " + sku);
        }
    }

    /** Fewer units on hand than were asked for. */
    public static final class Insufficient extends StockException {
        private final int available;
        private final int requested;

        public Insufficient(String sku, int available, int requested) {
            super(sku, "only " + available + " of " + sku + " on hand, " + requested + " requested");
            this.available = available;
            this.requested = requested;
        }

        public int available() {
            return available;
        }

        public int requested() {
            return requested;
        }
    }
}
''',
        "src/main/java/com/acme/inventory/Warehouse.java": r'''package com.acme.inventory;

import com.acme.inventory.errors.StockException;
import java.util.HashMap;
import java.util.Map;

/** Units on hand per SKU for one warehouse. */
public class Warehouse {
    private final Map<String, Integer> stock = new HashMap<>();

    public void receive(String sku, int quantity) {
        stock.merge(sku, quantity, Integer::sum);
    }

    public int onHand(String sku) {
        return stock.getOrDefault(sku, 0);
    }

    /** Removes units for an order and returns how many are left. */
    public int take(String sku, int quantity) {
        Integer onHand = stock.get(sku);
        if (onHand == null) {
            throw new StockException.UnknownSku(sku);
        }
        if (onHand < quantity) {
            return -1; // not enough
        }
        stock.put(sku, onHand - quantity);
        return onHand - quantity;
    }
}
''',
    },
    target="src/main/java/com/acme/inventory/Warehouse.java",
    instruction="take() returns -1 when there isn't enough stock. Throw our insufficient-stock error instead, "
                "with the numbers filled in.",
    edit=[["            return -1; // not enough\n",
           "            throw new StockException.Insufficient(sku, onHand, quantity);\n"]],
    test=r'''import com.acme.inventory.Warehouse;
import com.acme.inventory.errors.StockException;

public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        Warehouse w = new Warehouse();
        w.receive("BOLT-M6", 3);
        try {
            w.take("BOLT-M6", 5);
            throw new AssertionError("take did not throw");
        } catch (StockException.Insufficient e) {
            check(e.sku().equals("BOLT-M6"), e.sku());
            check(e.available() == 3, "available " + e.available());
            check(e.requested() == 5, "requested " + e.requested());
        }
        check(w.onHand("BOLT-M6") == 3, "stock changed");
        check(w.take("BOLT-M6", 2) == 1, "take 2");
    }
}
''',
)

# ---------------------------------------------------------------- API-wide paging constants

java(
    id="java-user-query-page-limits",
    files={
        "src/main/java/com/acme/api/Limits.java": r'''package com.acme.api;

/** API-wide limits; ops may tune these per deployment. */
public final class Limits {
    private Limits() {}

    /** Items per page when the client does not ask for a size. */
    public static final int DEFAULT_PAGE_SIZE = 25;

    /** Largest page any list endpoint will return. */
    public static final int MAX_PAGE_SIZE = 200;

    /** Longest search string accepted, in characters. */
    public static final int MAX_QUERY_LENGTH = 120;
}
''',
        "src/main/java/com/acme/api/users/UserQuery.java": r'''package com.acme.api.users;

/** Parameters of GET /users, parsed from the query string. */
public class UserQuery {
    private final String search;
    private final int requestedSize;
    private final int page;

    public UserQuery(String search, int requestedSize, int page) {
        this.search = search;
        this.requestedSize = requestedSize;
        this.page = page;
    }

    public String search() {
        return search == null ? "" : search.trim();
    }

    /** 1-based page number. */
    public int page() {
        return Math.max(page, 1);
    }

    /** How many users to return on this page. */
    public int pageSize() {
        return requestedSize > 0 ? requestedSize : 50;
    }

    public int offset() {
        return (page() - 1) * pageSize();
    }
}
''',
    },
    target="src/main/java/com/acme/api/users/UserQuery.java",
    instruction="pageSize() should fall back to the API's default page size when none is requested (0 or less) "
                "and never go over the API-wide maximum.",
    edit=[["package com.acme.api.users;\n", "package com.acme.api.users;\n\nimport com.acme.api.Limits;\n"],
          ["        return requestedSize > 0 ? requestedSize : 50;\n",
           "        if (requestedSize <= 0) {\n"
           "            return Limits.DEFAULT_PAGE_SIZE;\n"
           "        }\n"
           "        return Math.min(requestedSize, Limits.MAX_PAGE_SIZE);\n"]],
    test=r'''import com.acme.api.users.UserQuery;

public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        check(new UserQuery("ann", 0, 1).pageSize() == 25, "default");
        check(new UserQuery("ann", -3, 1).pageSize() == 25, "negative");
        check(new UserQuery("ann", 1000, 1).pageSize() == 200, "capped");
        check(new UserQuery("ann", 30, 1).pageSize() == 30, "as asked");
        check(new UserQuery(null, 0, 3).offset() == 50, "offset");
    }
}
''',
)

# ---------------------------------------------------------------- an enum value the service does not use yet

java(
    id="java-order-cancel-refund-state",
    files={
        "src/main/java/com/acme/orders/model/OrderStatus.java": r'''package com.acme.orders.model;

/** Lifecycle of an order. Payment is captured when an order becomes PAID. */
public enum OrderStatus {
    PENDING,
    PAID,
    SHIPPED,
    DELIVERED,
    CANCELLED,
    /** Cancelled after payment was captured: finance still owes the customer their money. */
    REFUND_DUE;

    /** True once the goods have left the warehouse. */
    public boolean hasShipped() {
        return this == SHIPPED || this == DELIVERED;
    }
}
''',
        "src/main/java/com/acme/orders/OrderService.java": r'''package com.acme.orders;

import com.acme.orders.model.OrderStatus;
import java.util.HashMap;
import java.util.Map;

/** Keeps each order's status and enforces the allowed transitions. */
public class OrderService {
    private final Map<String, OrderStatus> orders = new HashMap<>();

    public void place(String id) {
        orders.put(id, OrderStatus.PENDING);
    }

    public OrderStatus status(String id) {
        OrderStatus s = orders.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no order " + id);
        }
        return s;
    }

    public void markPaid(String id) {
        transition(id, OrderStatus.PENDING, OrderStatus.PAID);
    }

    public void markShipped(String id) {
        transition(id, OrderStatus.PAID, OrderStatus.SHIPPED);
    }

    /** The customer cancels. Orders that have shipped can no longer be cancelled. */
    public void cancel(String id) {
        OrderStatus current = status(id);
        if (current.hasShipped()) {
            throw new IllegalStateException("order " + id + " has already shipped");
        }
        orders.put(id, OrderStatus.CANCELLED);
    }

    private void transition(String id, OrderStatus from, OrderStatus to) {
        if (status(id) != from) {
            throw new IllegalStateException("order " + id + " is " + status(id) + ", not " + from);
        }
        orders.put(id, to);
    }
}
''',
    },
    target="src/main/java/com/acme/orders/OrderService.java",
    instruction="When a customer cancels an order they have already paid for, put it in the status that tells "
                "finance a refund is owed, not plain cancelled.",
    edit=[["        orders.put(id, OrderStatus.CANCELLED);\n",
           "        orders.put(id, current == OrderStatus.PAID ? OrderStatus.REFUND_DUE : OrderStatus.CANCELLED);\n"]],
    test=r'''import com.acme.orders.OrderService;
import com.acme.orders.model.OrderStatus;

public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        OrderService svc = new OrderService();
        svc.place("A1");
        svc.markPaid("A1");
        svc.cancel("A1");
        check(svc.status("A1") == OrderStatus.REFUND_DUE, "paid: " + svc.status("A1"));
        svc.place("B2");
        svc.cancel("B2");
        check(svc.status("B2") == OrderStatus.CANCELLED, "pending: " + svc.status("B2"));
        svc.place("C3");
        svc.markPaid("C3");
        svc.markShipped("C3");
        try {
            svc.cancel("C3");
            throw new AssertionError("shipped order was cancelled");
        } catch (IllegalStateException expected) {
            check(svc.status("C3") == OrderStatus.SHIPPED, "shipped: " + svc.status("C3"));
        }
    }
}
''',
)

# ---------------------------------------------------------------- a parser that returns milliseconds

java(
    id="java-retry-policy-duration-units",
    files={
        "src/main/java/com/acme/util/Durations.java": r'''package com.acme.util;

import java.util.Locale;

/** Parsing of human-written durations from config files. */
public final class Durations {
    private Durations() {}

    /**
     * Reads "250ms", "30s", "5m" or "2h" as a number of milliseconds. A bare number is taken
     * as milliseconds too.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static long parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long factor = 1;
        String digits = t;
        if (t.endsWith("ms")) {
            digits = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            factor = 1_000;
            digits = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            factor = 60_000;
            digits = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
            factor = 3_600_000;
            digits = t.substring(0, t.length() - 1);
        }
        try {
            return Long.parseLong(digits.trim()) * factor;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad duration: " + text, e);
        }
    }
}
''',
        "src/main/java/com/acme/net/RetryPolicy.java": r'''package com.acme.net;

/** How often, and how patiently, the HTTP client retries a failed request. */
public class RetryPolicy {
    private final int maxAttempts;
    private final long backoffSeconds;

    /** backoff comes from the config file's retry.backoff setting, e.g. "30" (seconds). */
    public RetryPolicy(int maxAttempts, String backoff) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
        this.maxAttempts = maxAttempts;
        this.backoffSeconds = Long.parseLong(backoff.trim());
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public long backoffSeconds() {
        return backoffSeconds;
    }

    /** Seconds to wait before attempt n (the first attempt is 1 and does not wait). */
    public long waitBeforeAttempt(int n) {
        return backoffSeconds * Math.max(0, n - 1);
    }
}
''',
    },
    target="src/main/java/com/acme/net/RetryPolicy.java",
    instruction="Let the backoff setting take values like '30s' or '2m' by reading it with Durations.parse; "
                "backoffSeconds() must stay in seconds.",
    edit=[["package com.acme.net;\n", "package com.acme.net;\n\nimport com.acme.util.Durations;\n"],
          ["        this.backoffSeconds = Long.parseLong(backoff.trim());\n",
           "        this.backoffSeconds = Durations.parse(backoff) / 1000;\n"]],
    test=r'''import com.acme.net.RetryPolicy;

public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        RetryPolicy p = new RetryPolicy(4, "2m");
        check(p.backoffSeconds() == 120, "2m -> " + p.backoffSeconds());
        check(p.waitBeforeAttempt(3) == 240, "wait " + p.waitBeforeAttempt(3));
        check(new RetryPolicy(2, "45s").backoffSeconds() == 45, "45s");
        check(new RetryPolicy(2, "3000ms").backoffSeconds() == 3, "3000ms");
        check(p.maxAttempts() == 4, "attempts");
    }
}
''',
)

# ---------------------------------------------------------------- a validation factory (default package)

java(
    id="java-signup-email-validation",
    files={
        "src/ValidationResult.java": r'''/** Outcome of validating a form: ok, or the first field that failed and why. */
public final class ValidationResult {
    private final String field;
    private final String message;

    private ValidationResult(String field, String message) {
        this.field = field;
        this.message = message;
    }

    public static ValidationResult ok() {
        return new ValidationResult(null, null);
    }

    /** The field was left empty. */
    public static ValidationResult missing(String field) {
        return new ValidationResult(field, field + " is required");
    }

    /** The field is shorter than min characters. */
    public static ValidationResult tooShort(String field, int min) {
        return new ValidationResult(field, field + " needs at least " + min + " characters");
    }

    /** The field is filled in but not in the expected form; hint tells the user what is wrong. */
    public static ValidationResult malformed(String field, String hint) {
        return new ValidationResult(field, field + " is not valid: " + hint);
    }

    public boolean isOk() {
        return field == null;
    }

    public String field() {
        return field;
    }

    public String message() {
        return message;
    }
}
''',
        "src/SignupForm.java": r'''/** The sign-up form as posted by the browser. */
public class SignupForm {
    static final int MIN_PASSWORD = 10;

    public String username = "";
    public String email = "";
    public String password = "";

    public ValidationResult validate() {
        if (username.isBlank()) {
            return ValidationResult.missing("username");
        }
        if (email.isBlank()) {
            return ValidationResult.missing("email");
        }
        if (password.length() < MIN_PASSWORD) {
            return ValidationResult.tooShort("password", MIN_PASSWORD);
        }
        return ValidationResult.ok();
    }
}
''',
    },
    target="src/SignupForm.java",
    instruction="validate() accepts emails without an '@'. Reject those with ValidationResult.malformed and the "
                "hint 'must contain @'.",
    edit=[['            return ValidationResult.missing("email");\n        }\n',
           '            return ValidationResult.missing("email");\n        }\n'
           '        if (!email.contains("@")) {\n'
           '            return ValidationResult.malformed("email", "must contain @");\n'
           '        }\n']],
    test=r'''public class _Check {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) {
        SignupForm f = new SignupForm();
        f.username = "ann";
        f.email = "ann.example.com";
        f.password = "correct horse battery";
        ValidationResult r = f.validate();
        check(!r.isOk(), "no @ accepted");
        check("email".equals(r.field()), "field " + r.field());
        check(r.message().equals("email is not valid: must contain @"), r.message());
        f.email = "ann@example.com";
        check(f.validate().isOk(), "good form rejected: " + f.validate().message());
        f.password = "short";
        check("password".equals(f.validate().field()), "password");
    }
}
''',
)

# ---------------------------------------------------------------- a quoting helper with (delimiter, field)

java(
    id="java-report-csv-quoting",
    files={
        "Csv.java": r'''/** RFC 4180-style quoting for the exports finance opens in Excel. */
public final class Csv {
    private Csv() {}

    /**
     * Returns field ready to be written between delimiters: quoted when it contains the
     * delimiter, a double quote or a line break, with inner quotes doubled. null becomes "".
     */
    public static String quote(char delimiter, String field) {
        if (field == null) {
            return "";
        }
        boolean needsQuotes = field.indexOf(delimiter) >= 0 || field.indexOf('"') >= 0
                || field.indexOf('\n') >= 0 || field.indexOf('\r') >= 0;
        if (!needsQuotes) {
            return field;
        }
        return "\"" + field.replace("\"", "\"\"") + "\"";
    }
}
''',
        "ReportWriter.java": r'''import java.util.List;

/** Writes the monthly sales report; finance's Excel expects semicolons and CRLF. */
public class ReportWriter {
    static final char DELIMITER = ';';

    private final StringBuilder out = new StringBuilder();

    public ReportWriter header(List<String> names) {
        return row(names);
    }

    public ReportWriter row(List<String> cells) {
        out.append(String.join(String.valueOf(DELIMITER), cells)).append("\r\n");
        return this;
    }

    public String text() {
        return out.toString();
    }
}
''',
    },
    target="ReportWriter.java",
    instruction="Cells containing a semicolon or quotes break the report's columns. Quote each cell with our "
                "CSV helper before joining.",
    edit=[["        out.append(String.join(String.valueOf(DELIMITER), cells)).append(\"\\r\\n\");\n",
           "        for (int i = 0; i < cells.size(); i++) {\n"
           "            if (i > 0) {\n"
           "                out.append(DELIMITER);\n"
           "            }\n"
           "            out.append(Csv.quote(DELIMITER, cells.get(i)));\n"
           "        }\n"
           "        out.append(\"\\r\\n\");\n"]],
    test=r'''import java.util.List;

public class _Check {
    public static void main(String[] args) {
        String text = new ReportWriter()
                .header(List.of("item", "note", "qty"))
                .row(List.of("Widget; large", "5\" pipe", "12"))
                .text();
        String want = "item;note;qty\r\n\"Widget; large\";\"5\"\" pipe\";12\r\n";
        if (!text.equals(want)) {
            throw new AssertionError(text);
        }
    }
}
''',
)

# ---------------------------------------------------------------- an injected clock in epoch seconds

java(
    id="java-session-expiry-clock",
    files={
        "src/main/java/com/acme/time/Clock.java": r'''package com.acme.time;

/** Source of the current time, injected so that tests can move it. */
public interface Clock {
    /** Whole seconds since the Unix epoch. */
    long epochSeconds();

    /** The real wall clock. */
    Clock SYSTEM = () -> System.currentTimeMillis() / 1000;
}
''',
        "src/main/java/com/acme/auth/Session.java": r'''package com.acme.auth;

import com.acme.time.Clock;

/** A signed-in session; it expires ttlMinutes after it was created. */
public class Session {
    private final String user;
    private final Clock clock;
    private final int ttlMinutes;
    private final long createdAtMillis;

    public Session(String user, Clock clock, int ttlMinutes) {
        this.user = user;
        this.clock = clock;
        this.ttlMinutes = ttlMinutes;
        this.createdAtMillis = System.currentTimeMillis();
    }

    public String user() {
        return user;
    }

    public boolean isExpired() {
        return System.currentTimeMillis() - createdAtMillis >= ttlMinutes * 60_000L;
    }
}
''',
    },
    target="src/main/java/com/acme/auth/Session.java",
    instruction="Session ignores the clock it is given. Take both the creation time and the expiry check from "
                "that clock.",
    edit=[["        this.createdAtMillis = System.currentTimeMillis();\n",
           "        this.createdAtMillis = clock.epochSeconds() * 1000;\n"],
          ["        return System.currentTimeMillis() - createdAtMillis >= ttlMinutes * 60_000L;\n",
           "        return clock.epochSeconds() * 1000 - createdAtMillis >= ttlMinutes * 60_000L;\n"]],
    test=r'''import com.acme.auth.Session;
import com.acme.time.Clock;

public class _Check {
    public static void main(String[] args) {
        long[] now = {1_700_000_000L};
        Clock fake = () -> now[0];
        Session s = new Session("ann", fake, 30);
        if (s.isExpired()) throw new AssertionError("expired at once");
        now[0] += 29 * 60;
        if (s.isExpired()) throw new AssertionError("expired after 29 minutes");
        now[0] += 60;
        if (!s.isExpired()) throw new AssertionError("not expired after 30 minutes");
        if (!s.user().equals("ann")) throw new AssertionError("user");
    }
}
''',
)


# ================================================================ C

# ---------------------------------------------------------------- a formatter with (buf, len, currency, cents)

c(
    id="c-cart-total-money-format",
    files={
        "include/money.h": r'''#ifndef MONEY_H
#define MONEY_H

#include <stddef.h>

/* Amounts are integer cents everywhere; these helpers turn them into text. */

/*
 * Writes an amount as "1234.56 EUR" into buf (at most len bytes, always NUL-terminated).
 * Negative amounts get a leading '-'. Returns what snprintf returned.
 */
int money_format(char *buf, size_t len, const char *currency, long cents);

/* Parses "12.50" or "12" into cents; returns -1 on anything else. */
long money_parse(const char *text);

#endif
''',
        "src/money.c": r'''#include <stdio.h>
#include <stdlib.h>

#include "money.h"

int money_format(char *buf, size_t len, const char *currency, long cents)
{
    const char *sign = cents < 0 ? "-" : "";
    long abs_cents = labs(cents);
    return snprintf(buf, len, "%s%ld.%02ld %s", sign, abs_cents / 100, abs_cents % 100, currency);
}

long money_parse(const char *text)
{
    long units = 0, frac = 0;
    char extra;
    int n = sscanf(text, "%ld.%2ld%c", &units, &frac, &extra);
    if (n == 1 || n == 2)
        return units * 100 + frac;
    return -1;
}
''',
        "include/cart.h": r'''#ifndef CART_H
#define CART_H

#include <stddef.h>

#define CART_MAX_LINES 32

struct cart_line {
    const char *sku;
    long unit_cents;
    int qty;
};

struct cart {
    char currency[4];               /* ISO 4217 code */
    struct cart_line lines[CART_MAX_LINES];
    size_t count;
};

void cart_init(struct cart *c, const char *currency);
int cart_add(struct cart *c, const char *sku, long unit_cents, int qty);
long cart_total_cents(const struct cart *c);
void cart_total_label(const struct cart *c, char *buf, size_t len);

#endif
''',
        "src/cart.c": r'''#include <stdio.h>
#include <string.h>

#include "cart.h"

void cart_init(struct cart *c, const char *currency)
{
    memset(c, 0, sizeof *c);
    strncpy(c->currency, currency, sizeof c->currency - 1);
}

/* Returns 0, or -1 when the cart is full or qty is not positive. */
int cart_add(struct cart *c, const char *sku, long unit_cents, int qty)
{
    if (c->count == CART_MAX_LINES || qty <= 0)
        return -1;
    c->lines[c->count++] = (struct cart_line){ sku, unit_cents, qty };
    return 0;
}

long cart_total_cents(const struct cart *c)
{
    long total = 0;
    for (size_t i = 0; i < c->count; i++)
        total += c->lines[i].unit_cents * c->lines[i].qty;
    return total;
}

/* The text shown next to "Total" at checkout. */
void cart_total_label(const struct cart *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s %.2f", c->currency, cart_total_cents(c) / 100.0);
}
''',
    },
    target="src/cart.c",
    instruction="Make the checkout total label use our money formatter instead of printf-ing a double.",
    edit=[['#include "cart.h"\n', '#include "cart.h"\n#include "money.h"\n'],
          ['    snprintf(buf, len, "%s %.2f", c->currency, cart_total_cents(c) / 100.0);\n',
           "    money_format(buf, len, c->currency, cart_total_cents(c));\n"]],
    test=r'''#include <stdio.h>
#include <string.h>

#include "cart.h"
#include "money.h"

int main(void)
{
    struct cart c;
    char got[64], want[64];
    cart_init(&c, "EUR");
    cart_add(&c, "MUG", 61725, 2);
    cart_add(&c, "PIN", 5, 1);
    cart_total_label(&c, got, sizeof got);
    money_format(want, sizeof want, "EUR", 123455);
    if (strcmp(got, want) != 0 || strcmp(got, "1234.55 EUR") != 0) {
        fprintf(stderr, "label: %s\n", got);
        return 1;
    }
    cart_add(&c, "VOUCHER", -200000, 1);
    cart_total_label(&c, got, sizeof got);
    if (strcmp(got, "-765.45 EUR") != 0) {
        fprintf(stderr, "negative label: %s\n", got);
        return 1;
    }
    return 0;
}
''',
)

# ---------------------------------------------------------------- a configured limit in the header

c(
    id="c-server-accept-client-limit",
    files={
        "include/server.h": r'''#ifndef SERVER_H
#define SERVER_H

/* Tunables; packagers may override them with -D. */
#ifndef SERVER_MAX_CLIENTS
#define SERVER_MAX_CLIENTS 48       /* connections held at once before new ones are refused */
#endif
#define SERVER_IDLE_TIMEOUT_S 30

struct server {
    int clients[SERVER_MAX_CLIENTS]; /* fd of each connected client, -1 when the slot is free */
    int active;
    unsigned long refused;
};

void server_init(struct server *s);
int server_accept(struct server *s, int fd);    /* slot index, or -1 when full */
void server_close(struct server *s, int slot);

#endif
''',
        "src/server.c": r'''#include <stddef.h>

#include "server.h"

#define MAX_CONN 16

void server_init(struct server *s)
{
    for (size_t i = 0; i < sizeof s->clients / sizeof s->clients[0]; i++)
        s->clients[i] = -1;
    s->active = 0;
    s->refused = 0;
}

/* Takes a newly accepted connection; refuses it when every slot is in use. */
int server_accept(struct server *s, int fd)
{
    if (s->active >= MAX_CONN) {
        s->refused++;
        return -1;
    }
    for (int i = 0; i < MAX_CONN; i++) {
        if (s->clients[i] == -1) {
            s->clients[i] = fd;
            s->active++;
            return i;
        }
    }
    s->refused++;
    return -1;
}

void server_close(struct server *s, int slot)
{
    if (slot >= 0 && s->clients[slot] != -1) {
        s->clients[slot] = -1;
        s->active--;
    }
}
''',
    },
    target="src/server.c",
    instruction="server_accept still refuses connections after its own hard-coded 16; use SERVER_MAX_CLIENTS "
                "instead.",
    edit=[["#define MAX_CONN 16\n", "#define MAX_CONN SERVER_MAX_CLIENTS\n"]],
    test=r'''#include <stdio.h>

#include "server.h"

int main(void)
{
    static struct server s;
    server_init(&s);
    for (int i = 0; i < 48; i++) {
        if (server_accept(&s, 100 + i) < 0) {
            fprintf(stderr, "refused connection %d\n", i);
            return 1;
        }
    }
    if (server_accept(&s, 999) != -1 || s.refused != 1) {
        fprintf(stderr, "accepted past the limit\n");
        return 1;
    }
    server_close(&s, 7);
    if (server_accept(&s, 555) != 7 || s.active != 48) {
        fprintf(stderr, "slot not reused\n");
        return 1;
    }
    return 0;
}
''',
)

# ---------------------------------------------------------------- specific error codes from an enum

c(
    id="c-kv-specific-error-codes",
    files={
        "include/kv_err.h": r'''#ifndef KV_ERR_H
#define KV_ERR_H

/* Status codes returned by every kv_* call: 0 on success, a negative kv_err otherwise. */
enum kv_err {
    KV_OK = 0,
    KV_ENOTFOUND = -1,  /* no such key */
    KV_EFULL = -2,      /* the table has no free slot */
    KV_EKEYLEN = -3,    /* key empty or longer than KV_MAX_KEY */
    KV_EREADONLY = -4,  /* store opened read-only */
};

/* A short English description of a status code, for logs. */
const char *kv_strerror(int code);

#endif
''',
        "src/kv_err.c": r'''#include "kv_err.h"

const char *kv_strerror(int code)
{
    switch (code) {
    case KV_OK:        return "ok";
    case KV_ENOTFOUND: return "key not found";
    case KV_EFULL:     return "store is full";
    case KV_EKEYLEN:   return "bad key length";
    case KV_EREADONLY: return "store is read-only";
    default:           return "unknown error";
    }
}
''',
        "include/kv.h": r'''#ifndef KV_H
#define KV_H

#include <stdbool.h>
#include <stddef.h>

#include "kv_err.h"

#define KV_CAPACITY 8
#define KV_MAX_KEY 15

struct kv {
    char keys[KV_CAPACITY][KV_MAX_KEY + 1];
    int values[KV_CAPACITY];
    size_t count;
    bool readonly;
};

void kv_init(struct kv *kv, bool readonly);
int kv_put(struct kv *kv, const char *key, int value);
int kv_get(const struct kv *kv, const char *key, int *out);

#endif
''',
        "src/kv.c": r'''#include <string.h>

#include "kv.h"

void kv_init(struct kv *kv, bool readonly)
{
    memset(kv, 0, sizeof *kv);
    kv->readonly = readonly;
}

int kv_put(struct kv *kv, const char *key, int value)
{
    size_t n = strlen(key);
    if (kv->readonly)
        return -1;
    if (n == 0 || n > KV_MAX_KEY)
        return -1;
    for (size_t i = 0; i < kv->count; i++) {
        if (strcmp(kv->keys[i], key) == 0) {
            kv->values[i] = value;
            return 0;
        }
    }
    if (kv->count == KV_CAPACITY)
        return -1;
    memcpy(kv->keys[kv->count], key, n + 1);
    kv->values[kv->count++] = value;
    return 0;
}

int kv_get(const struct kv *kv, const char *key, int *out)
{
    for (size_t i = 0; i < kv->count; i++) {
        if (strcmp(kv->keys[i], key) == 0) {
            *out = kv->values[i];
            return 0;
        }
    }
    return -1;
}
''',
    },
    target="src/kv.c",
    instruction="kv_put and kv_get return a bare -1 for every failure. Return the store's specific error codes "
                "instead so callers can tell why.",
    edit=[["    if (kv->readonly)\n        return -1;\n", "    if (kv->readonly)\n        return KV_EREADONLY;\n"],
          ["    if (n == 0 || n > KV_MAX_KEY)\n        return -1;\n",
           "    if (n == 0 || n > KV_MAX_KEY)\n        return KV_EKEYLEN;\n"],
          ["    if (kv->count == KV_CAPACITY)\n        return -1;\n",
           "    if (kv->count == KV_CAPACITY)\n        return KV_EFULL;\n"],
          ["    }\n    return -1;\n}\n", "    }\n    return KV_ENOTFOUND;\n}\n"]],
    test=r'''#include <stdio.h>

#include "kv.h"

#define EXPECT(expr, want) do { int got_ = (expr); if (got_ != (want)) { \
    fprintf(stderr, "%s = %d (%s), want %d\n", #expr, got_, kv_strerror(got_), (int)(want)); return 1; } } while (0)

int main(void)
{
    struct kv kv;
    int v = 0;
    char key[4] = "k0";
    kv_init(&kv, false);
    EXPECT(kv_put(&kv, "", 1), KV_EKEYLEN);
    EXPECT(kv_put(&kv, "a-key-that-is-way-too-long", 1), KV_EKEYLEN);
    for (int i = 0; i < KV_CAPACITY; i++) {
        key[1] = (char)('0' + i);
        EXPECT(kv_put(&kv, key, i), KV_OK);
    }
    EXPECT(kv_put(&kv, "one-more", 9), KV_EFULL);
    EXPECT(kv_put(&kv, "k3", 33), KV_OK);
    EXPECT(kv_get(&kv, "k3", &v), KV_OK);
    EXPECT(v, 33);
    EXPECT(kv_get(&kv, "nope", &v), KV_ENOTFOUND);
    kv_init(&kv, true);
    EXPECT(kv_put(&kv, "k1", 1), KV_EREADONLY);
    return 0;
}
''',
)

# ---------------------------------------------------------------- a helper taking (lat, lon) and returning metres

c(
    id="c-trip-length-great-circle",
    files={
        "include/geo.h": r'''#ifndef GEO_H
#define GEO_H

/* Mean Earth radius in metres (IUGG). */
#define GEO_EARTH_RADIUS_M 6371008.8

/*
 * Great-circle (haversine) distance in metres between two WGS84 points given in degrees,
 * latitude first: geo_distance_m(lat1, lon1, lat2, lon2).
 */
double geo_distance_m(double lat1, double lon1, double lat2, double lon2);

#endif
''',
        "src/geo.c": r'''#include <math.h>

#include "geo.h"

static const double DEG = 3.14159265358979323846 / 180.0;

double geo_distance_m(double lat1, double lon1, double lat2, double lon2)
{
    double dlat = (lat2 - lat1) * DEG;
    double dlon = (lon2 - lon1) * DEG;
    double a = sin(dlat / 2) * sin(dlat / 2)
             + cos(lat1 * DEG) * cos(lat2 * DEG) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * GEO_EARTH_RADIUS_M * asin(sqrt(a));
}
''',
        "include/trip.h": r'''#ifndef TRIP_H
#define TRIP_H

#include <stddef.h>

/* A GPS fix as the tracker sends it (GeoJSON order: longitude first). */
struct point {
    double lon;
    double lat;
};

double trip_length_km(const struct point *pts, size_t n);
double trip_avg_speed_kmh(const struct point *pts, size_t n, double seconds);

#endif
''',
        "src/trip.c": r'''#include <math.h>

#include "trip.h"

/* Total length of the track in kilometres; 0 for fewer than two points. */
double trip_length_km(const struct point *pts, size_t n)
{
    double km = 0.0;
    for (size_t i = 1; i < n; i++) {
        /* flat-earth approximation: one degree is about 111.32 km */
        double dx = pts[i].lon - pts[i - 1].lon;
        double dy = pts[i].lat - pts[i - 1].lat;
        km += sqrt(dx * dx + dy * dy) * 111.32;
    }
    return km;
}

double trip_avg_speed_kmh(const struct point *pts, size_t n, double seconds)
{
    if (seconds <= 0)
        return 0.0;
    return trip_length_km(pts, n) / (seconds / 3600.0);
}
''',
    },
    target="src/trip.c",
    instruction="The flat-earth approximation in trip_length_km is way off on long legs. Measure each leg with "
                "geo_distance_m instead.",
    edit=[['#include "trip.h"\n', '#include "geo.h"\n#include "trip.h"\n'],
          ["""        /* flat-earth approximation: one degree is about 111.32 km */
        double dx = pts[i].lon - pts[i - 1].lon;
        double dy = pts[i].lat - pts[i - 1].lat;
        km += sqrt(dx * dx + dy * dy) * 111.32;
""", """        km += geo_distance_m(pts[i - 1].lat, pts[i - 1].lon, pts[i].lat, pts[i].lon) / 1000.0;
"""]],
    test=r'''#include <math.h>
#include <stdio.h>

#include "geo.h"
#include "trip.h"

int main(void)
{
    /* Paris -> London -> Berlin, longitude first */
    struct point route[] = { { 2.3522, 48.8566 }, { -0.1276, 51.5072 }, { 13.4050, 52.5200 } };
    double want = (geo_distance_m(48.8566, 2.3522, 51.5072, -0.1276)
                 + geo_distance_m(51.5072, -0.1276, 52.5200, 13.4050)) / 1000.0;
    double got = trip_length_km(route, 3);
    if (fabs(got - want) > 1e-6 || fabs(got - 1274.0) > 10.0) {
        fprintf(stderr, "length %.3f km, want %.3f\n", got, want);
        return 1;
    }
    if (trip_length_km(route, 1) != 0.0)
        return 1;
    /* the first leg in half an hour */
    if (fabs(trip_avg_speed_kmh(route, 2, 1800.0) - 2 * geo_distance_m(48.8566, 2.3522, 51.5072, -0.1276) / 1000.0) > 1e-6) {
        fprintf(stderr, "speed %.3f km/h\n", trip_avg_speed_kmh(route, 2, 1800.0));
        return 1;
    }
    return 0;
}
''',
)

# ---------------------------------------------------------------- a variadic error setter with (err, line, fmt)

c(
    id="c-ini-missing-equals-error",
    files={
        "include/parse_error.h": r'''#ifndef PARSE_ERROR_H
#define PARSE_ERROR_H

/* Where and why a parser gave up. */
struct parse_error {
    int line;            /* 1-based line of the input */
    char message[96];
};

/*
 * Records a failure at `line` with a printf-style message and returns -1, so parsers can write
 * `return parse_fail(err, line, "...")`. err may be NULL when the caller does not care.
 */
int parse_fail(struct parse_error *err, int line, const char *fmt, ...);

#endif
''',
        "src/parse_error.c": r'''#include <stdarg.h>
#include <stdio.h>

#include "parse_error.h"

int parse_fail(struct parse_error *err, int line, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return -1;
    err->line = line;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}
''',
        "include/ini.h": r'''#ifndef INI_H
#define INI_H

#include "parse_error.h"

/* Called once per key = value line, with the section it is in ("" before any). */
typedef void (*ini_handler)(const char *section, const char *key, const char *value, void *ctx);

/* Parses INI text; 0 on success, -1 on a syntax error (described in *err). */
int ini_parse(const char *text, ini_handler handler, void *ctx, struct parse_error *err);

#endif
''',
        "src/ini.c": r'''#include <string.h>

#include "ini.h"

/* Copies s[0..n) into out without leading and trailing blanks. */
static void copy_trimmed(char *out, size_t outsz, const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t' || *s == '\r')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n >= outsz)
        n = outsz - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

int ini_parse(const char *text, ini_handler handler, void *ctx, struct parse_error *err)
{
    char section[64] = "", line[256], key[128], value[128];
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        copy_trimmed(line, sizeof line, p, n);
        p += n + (end ? 1 : 0);
        lineno++;
        if (line[0] == '\0' || line[0] == ';' || line[0] == '#')
            continue;
        if (line[0] == '[') {
            char *close = strchr(line, ']');
            if (close)
                *close = '\0';
            copy_trimmed(section, sizeof section, line + 1, strlen(line + 1));
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq)
            continue; /* not a key = value line */
        *eq = '\0';
        copy_trimmed(key, sizeof key, line, strlen(line));
        copy_trimmed(value, sizeof value, eq + 1, strlen(eq + 1));
        handler(section, key, value, ctx);
    }
    return 0;
}
''',
    },
    target="src/ini.c",
    instruction="ini_parse silently skips lines that have no '='. Make it fail there instead, recording the line "
                "number with our parse-error helper and the message \"expected '='\".",
    edit=[["            continue; /* not a key = value line */\n",
           "            return parse_fail(err, lineno, \"expected '='\");\n"]],
    test=r'''#include <stdio.h>
#include <string.h>

#include "ini.h"

static int seen;

static void count(const char *section, const char *key, const char *value, void *ctx)
{
    (void)section; (void)key; (void)value; (void)ctx;
    seen++;
}

int main(void)
{
    struct parse_error err = { 0, "" };
    const char *good = "; settings\n[db]\nhost = localhost\nport=5432\n";
    const char *bad = "[db]\nhost = localhost\nport 5432\nuser = app\n";
    if (ini_parse(good, count, NULL, &err) != 0 || seen != 2) {
        fprintf(stderr, "good text: seen %d\n", seen);
        return 1;
    }
    seen = 0;
    if (ini_parse(bad, count, NULL, &err) != -1) {
        fprintf(stderr, "bad text accepted\n");
        return 1;
    }
    if (err.line != 3 || strcmp(err.message, "expected '='") != 0 || seen != 1) {
        fprintf(stderr, "line %d message '%s' seen %d\n", err.line, err.message, seen);
        return 1;
    }
    if (ini_parse(bad, count, NULL, NULL) != -1)
        return 1;
    return 0;
}
''',
)

# ---------------------------------------------------------------- a running CRC with (crc, data, len) (flat layout)

c(
    id="c-packet-crc32-checksum",
    files={
        "crc.h": r'''#ifndef CRC_H
#define CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32 (IEEE 802.3, the one zlib and PNG use). Start with crc = 0 and feed the data in as
 * many pieces as you like: crc = crc32_update(crc, piece, piece_len).
 */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
''',
        "crc.c": r'''#include "crc.h"

uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
''',
        "packet.h": r'''#ifndef PACKET_H
#define PACKET_H

#include <stddef.h>
#include <stdint.h>

#define PACKET_MAX_PAYLOAD 240

struct packet {
    uint8_t type;
    uint8_t flags;
    uint16_t payload_len;
    uint8_t payload[PACKET_MAX_PAYLOAD];
    uint32_t checksum;
};

int packet_init(struct packet *p, uint8_t type, uint8_t flags, const void *payload, size_t len);
void packet_seal(struct packet *p);
int packet_verify(const struct packet *p);

#endif
''',
        "packet.c": r'''#include <string.h>

#include "crc.h"
#include "packet.h"

/* The checksum covers the type and flags bytes, then the payload. */
static uint32_t packet_checksum(const struct packet *p)
{
    uint32_t sum = p->type + p->flags;
    for (size_t i = 0; i < p->payload_len; i++)
        sum += p->payload[i];
    return sum;
}

int packet_init(struct packet *p, uint8_t type, uint8_t flags, const void *payload, size_t len)
{
    if (len > PACKET_MAX_PAYLOAD)
        return -1;
    memset(p, 0, sizeof *p);
    p->type = type;
    p->flags = flags;
    p->payload_len = (uint16_t)len;
    memcpy(p->payload, payload, len);
    return 0;
}

void packet_seal(struct packet *p)
{
    p->checksum = packet_checksum(p);
}

/* 1 when the stored checksum matches the contents. */
int packet_verify(const struct packet *p)
{
    return p->checksum == packet_checksum(p);
}
''',
    },
    target="packet.c",
    instruction="The byte-sum checksum misses swapped bytes. Compute the packet checksum with crc32_update "
                "instead, over the same bytes in the same order.",
    edit=[["""    uint32_t sum = p->type + p->flags;
    for (size_t i = 0; i < p->payload_len; i++)
        sum += p->payload[i];
    return sum;
""", """    uint8_t header[2] = { p->type, p->flags };
    uint32_t crc = crc32_update(0, header, sizeof header);
    return crc32_update(crc, p->payload, p->payload_len);
"""]],
    test=r'''#include <stdio.h>
#include <string.h>

#include "crc.h"
#include "packet.h"

int main(void)
{
    struct packet p;
    const uint8_t head[2] = { 7, 1 };
    uint32_t want;
    if (crc32_update(0, "123456789", 9) != 0xCBF43926u)
        return 2;
    packet_init(&p, 7, 1, "hello, world", 12);
    packet_seal(&p);
    want = crc32_update(crc32_update(0, head, 2), "hello, world", 12);
    if (p.checksum != want) {
        fprintf(stderr, "checksum %08x, want %08x\n", (unsigned)p.checksum, (unsigned)want);
        return 1;
    }
    if (!packet_verify(&p))
        return 1;
    p.payload[0] = 'e';
    p.payload[1] = 'h';
    if (packet_verify(&p)) {
        fprintf(stderr, "swapped bytes not detected\n");
        return 1;
    }
    return 0;
}
''',
)

# ---------------------------------------------------------------- enum bands and their marks (flat layout)

c(
    id="c-grade-bands-from-marks",
    files={
        "grade.h": r'''#ifndef GRADE_H
#define GRADE_H

/* Grade bands printed on transcripts (exam board rules, 2024 edition). */
enum grade {
    GRADE_FAIL,
    GRADE_PASS,
    GRADE_MERIT,
    GRADE_DISTINCTION,
};

/* Lowest mark, out of 100, that earns each band. */
#define PASS_MARK 40
#define MERIT_MARK 60
#define DISTINCTION_MARK 75

static inline const char *grade_name(enum grade g)
{
    switch (g) {
    case GRADE_PASS:        return "Pass";
    case GRADE_MERIT:       return "Merit";
    case GRADE_DISTINCTION: return "Distinction";
    default:                return "Fail";
    }
}

#endif
''',
        "report.h": r'''#ifndef REPORT_H
#define REPORT_H

#include <stddef.h>

#include "grade.h"

struct student {
    const char *name;
    int mark;
};

enum grade grade_for(int mark);
int report_line(char *buf, size_t len, const struct student *s);

#endif
''',
        "report.c": r'''#include <stdio.h>

#include "report.h"

/* The band a mark out of 100 falls in. */
enum grade grade_for(int mark)
{
    return mark >= 50 ? GRADE_PASS : GRADE_FAIL;
}

/* One transcript line: name, mark and grade in fixed columns. */
int report_line(char *buf, size_t len, const struct student *s)
{
    return snprintf(buf, len, "%-16s %3d  %s", s->name, s->mark, grade_name(grade_for(s->mark)));
}
''',
    },
    target="report.c",
    instruction="grade_for only knows pass and fail, with a made-up cutoff of 50. Use all the grade bands with "
                "the official marks.",
    edit=[["    return mark >= 50 ? GRADE_PASS : GRADE_FAIL;\n",
           "    if (mark >= DISTINCTION_MARK)\n"
           "        return GRADE_DISTINCTION;\n"
           "    if (mark >= MERIT_MARK)\n"
           "        return GRADE_MERIT;\n"
           "    if (mark >= PASS_MARK)\n"
           "        return GRADE_PASS;\n"
           "    return GRADE_FAIL;\n"]],
    test=r'''#include <stdio.h>
#include <string.h>

#include "report.h"

int main(void)
{
    static const struct { int mark; enum grade want; } cases[] = {
        { 0, GRADE_FAIL }, { 39, GRADE_FAIL }, { 40, GRADE_PASS }, { 59, GRADE_PASS },
        { 60, GRADE_MERIT }, { 74, GRADE_MERIT }, { 75, GRADE_DISTINCTION }, { 100, GRADE_DISTINCTION },
    };
    char line[64];
    struct student s = { "Ada", 81 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (grade_for(cases[i].mark) != cases[i].want) {
            fprintf(stderr, "mark %d: %s\n", cases[i].mark, grade_name(grade_for(cases[i].mark)));
            return 1;
        }
    }
    report_line(line, sizeof line, &s);
    if (strstr(line, "Distinction") == NULL) {
        fprintf(stderr, "line: %s\n", line);
        return 1;
    }
    return 0;
}
''',
)

# ---------------------------------------------------------------- a path helper with (dir, name, out, outsz)

c(
    id="c-cache-path-join",
    files={
        "include/pathutil.h": r'''#ifndef PATHUTIL_H
#define PATHUTIL_H

#include <stddef.h>

/*
 * Joins dir and name with exactly one '/' between them, whether or not dir ends in '/' or name
 * starts with one. Returns the length written, or -1 when the result and its NUL do not fit in
 * outsz bytes (out then holds a truncated string).
 */
int path_join(const char *dir, const char *name, char *out, size_t outsz);

/* Pointer to the last component of path ("a/b/c.txt" -> "c.txt"). */
const char *path_base(const char *path);

#endif
''',
        "src/pathutil.c": r'''#include <stdio.h>
#include <string.h>

#include "pathutil.h"

int path_join(const char *dir, const char *name, char *out, size_t outsz)
{
    size_t dl = strlen(dir);
    while (dl > 0 && dir[dl - 1] == '/')
        dl--;
    while (*name == '/')
        name++;
    int n = snprintf(out, outsz, "%.*s/%s", (int)dl, dir, name);
    if (n < 0 || (size_t)n >= outsz)
        return -1;
    return n;
}

const char *path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
''',
        "include/cache.h": r'''#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>

/* Thumbnails are cached on disk under one directory, one file per key. */
void cache_set_dir(const char *dir);
int cache_key_valid(const char *key);
int cache_path_for(const char *key, char *out, size_t outsz);

#endif
''',
        "src/cache.c": r'''#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cache.h"

static char cache_dir[256] = "/var/cache/thumbs";

void cache_set_dir(const char *dir)
{
    snprintf(cache_dir, sizeof cache_dir, "%s", dir);
}

/* Keys are 1 to 64 lowercase hex digits, so they are always safe as file names. */
int cache_key_valid(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n > 64)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)key[i]) || isupper((unsigned char)key[i]))
            return 0;
    return 1;
}

/* The file that holds key's thumbnail; 0, or -1 for a bad key. */
int cache_path_for(const char *key, char *out, size_t outsz)
{
    if (!cache_key_valid(key))
        return -1;
    snprintf(out, outsz, "%s%s", cache_dir, key);
    return 0;
}
''',
    },
    target="src/cache.c",
    instruction="cache_path_for loses the slash between the cache directory and the key, and truncates silently. "
                "Build the path with our path-joining helper and return -1 when it does not fit.",
    edit=[['#include "cache.h"\n', '#include "cache.h"\n#include "pathutil.h"\n'],
          ['    snprintf(out, outsz, "%s%s", cache_dir, key);\n    return 0;\n',
           "    if (path_join(cache_dir, key, out, outsz) < 0)\n        return -1;\n    return 0;\n"]],
    test=r'''#include <stdio.h>
#include <string.h>

#include "cache.h"

int main(void)
{
    char out[64], tiny[12];
    if (cache_path_for("ab12", out, sizeof out) != 0 || strcmp(out, "/var/cache/thumbs/ab12") != 0) {
        fprintf(stderr, "default dir: %s\n", out);
        return 1;
    }
    cache_set_dir("/tmp/thumbs/");
    if (cache_path_for("ff00", out, sizeof out) != 0 || strcmp(out, "/tmp/thumbs/ff00") != 0) {
        fprintf(stderr, "trailing slash: %s\n", out);
        return 1;
    }
    if (cache_path_for("ff00aa", tiny, sizeof tiny) != -1) {
        fprintf(stderr, "truncated path accepted: %s\n", tiny);
        return 1;
    }
    if (cache_path_for("XYZ", out, sizeof out) != -1)
        return 1;
    return 0;
}
''',
)


# ================================================================ Rust

# ---------------------------------------------------------------- a tax helper with (band, net) and rounding

rust(
    id="rust-invoice-line-vat",
    files={
        "Cargo.toml": cargo("billing"),
        "src/lib.rs": r'''//! Invoicing for the shop: invoice lines and the tax rules they follow.

pub mod invoice;
pub mod tax;
''',
        "src/tax.rs": r'''//! VAT rules. Amounts are integer cents and rates are basis points, so everything stays exact.

/// The VAT band an item falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Band {
    Standard,
    Reduced,
    Exempt,
}

impl Band {
    /// The rate in basis points (hundredths of a percent): 2000 is 20 %.
    pub fn basis_points(self) -> u64 {
        match self {
            Band::Standard => 2000,
            Band::Reduced => 550,
            Band::Exempt => 0,
        }
    }
}

/// VAT owed on `net_cents` in `band`, rounded half up to the cent.
pub fn vat_cents(band: Band, net_cents: u64) -> u64 {
    (net_cents * band.basis_points() + 5_000) / 10_000
}
''',
        "src/invoice.rs": r'''//! Invoice lines and totals.

use crate::tax::Band;

/// One line of an invoice.
#[derive(Debug, Clone)]
pub struct Line {
    pub description: String,
    pub unit_cents: u64,
    pub quantity: u32,
    pub band: Band,
}

impl Line {
    pub fn new(description: &str, unit_cents: u64, quantity: u32, band: Band) -> Self {
        Line { description: description.to_string(), unit_cents, quantity, band }
    }

    /// Price before tax.
    pub fn net_cents(&self) -> u64 {
        self.unit_cents * u64::from(self.quantity)
    }

    /// What the customer pays for this line.
    pub fn gross_cents(&self) -> u64 {
        self.net_cents()
    }
}

/// What the customer pays for the whole invoice.
pub fn invoice_total(lines: &[Line]) -> u64 {
    lines.iter().map(Line::gross_cents).sum()
}
''',
    },
    target="src/invoice.rs",
    instruction="gross_cents() forgets the tax. Add the VAT for the line's band, worked out by our tax rules.",
    edit=[["use crate::tax::Band;\n", "use crate::tax::{vat_cents, Band};\n"],
          ["    pub fn gross_cents(&self) -> u64 {\n        self.net_cents()\n",
           "    pub fn gross_cents(&self) -> u64 {\n        self.net_cents() + vat_cents(self.band, self.net_cents())\n"]],
    test=r'''use billing::invoice::{invoice_total, Line};
use billing::tax::{vat_cents, Band};

#[test]
fn gross_includes_vat() {
    let book = Line::new("Cookbook", 1299, 3, Band::Reduced);
    assert_eq!(book.net_cents(), 3897);
    assert_eq!(book.gross_cents(), 3897 + vat_cents(Band::Reduced, 3897));
    assert_eq!(book.gross_cents(), 4111);
    let lamp = Line::new("Lamp", 1000, 1, Band::Standard);
    assert_eq!(lamp.gross_cents(), 1200);
    let stamp = Line::new("Stamp", 500, 2, Band::Exempt);
    assert_eq!(stamp.gross_cents(), 1000);
    assert_eq!(invoice_total(&[book, lamp, stamp]), 6311);
}
''',
)

# ---------------------------------------------------------------- the store's error enum with a struct variant

rust(
    id="rust-store-take-missing-key",
    files={
        "Cargo.toml": cargo("kvstore"),
        "src/lib.rs": r'''//! A tiny in-memory key-value store used by the config service.

pub mod error;
pub mod store;
''',
        "src/error.rs": r'''//! Errors returned by store operations.

use std::fmt;

/// Everything that can go wrong in a store operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// There is no entry under `key`.
    Missing { key: String },
    /// The store was opened read-only.
    ReadOnly,
    /// Keys are 1 to 64 bytes long.
    BadKey(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Missing { key } => write!(f, "no entry for {key:?}"),
            StoreError::ReadOnly => write!(f, "the store is read-only"),
            StoreError::BadKey(key) => write!(f, "bad key {key:?}"),
        }
    }
}

impl std::error::Error for StoreError {}
''',
        "src/store.rs": r'''//! The store itself: string keys to string values, kept in key order.

use std::collections::BTreeMap;

use crate::error::StoreError;

#[derive(Debug, Default)]
pub struct Store {
    entries: BTreeMap<String, String>,
    read_only: bool,
}

impl Store {
    pub fn new() -> Self {
        Self::default()
    }

    /// The same store, refusing every change from now on.
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    pub fn put(&mut self, key: &str, value: &str) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        if key.is_empty() || key.len() > 64 {
            return Err(StoreError::BadKey(key.to_string()));
        }
        self.entries.insert(key.to_string(), value.to_string());
        Ok(())
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// Removes the entry under `key` and returns its value.
    pub fn take(&mut self, key: &str) -> Result<String, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        Ok(self.entries.remove(key).unwrap_or_default())
    }
}
''',
    },
    target="src/store.rs",
    instruction="take() hands back an empty string when the key isn't there. Return the store's missing-entry "
                "error instead.",
    edit=[["        Ok(self.entries.remove(key).unwrap_or_default())\n",
           "        self.entries.remove(key).ok_or_else(|| StoreError::Missing { key: key.to_string() })\n"]],
    test=r'''use kvstore::error::StoreError;
use kvstore::store::Store;

#[test]
fn take_reports_missing_keys() {
    let mut s = Store::new();
    s.put("theme", "dark").unwrap();
    assert_eq!(s.take("theme"), Ok("dark".to_string()));
    assert_eq!(s.take("theme"), Err(StoreError::Missing { key: "theme".to_string() }));
    assert_eq!(s.take("nope"), Err(StoreError::Missing { key: "nope".to_string() }));
    let mut ro = Store::new().read_only();
    assert_eq!(ro.take("x"), Err(StoreError::ReadOnly));
}
''',
)

# ---------------------------------------------------------------- paging constants in a config module

rust(
    id="rust-catalog-page-size-limits",
    files={
        "Cargo.toml": cargo("catalog"),
        "src/lib.rs": r'''//! The public product catalogue API.

pub mod config;
pub mod pages;
''',
        "src/config.rs": r'''//! Settings of the public catalogue API.

/// Items per page when the client does not say.
pub const DEFAULT_PER_PAGE: usize = 24;

/// Most items one page may hold, whatever the client asks for.
pub const PER_PAGE_LIMIT: usize = 96;

/// How long clients may cache a page, in seconds.
pub const CACHE_SECONDS: u32 = 300;
''',
        "src/pages.rs": r'''//! Cutting result lists into pages.

/// One page of results and where it sits in the whole list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub number: usize,
    pub per_page: usize,
    pub total: usize,
}

/// Page `number` (1-based) of `items`, with `per_page` items to a page if the client chose.
pub fn paginate<T: Clone>(items: &[T], number: usize, per_page: Option<usize>) -> Page<T> {
    let per_page = per_page.unwrap_or(20);
    let number = number.max(1);
    let start = (number - 1).saturating_mul(per_page).min(items.len());
    let end = start.saturating_add(per_page).min(items.len());
    Page { items: items[start..end].to_vec(), number, per_page, total: items.len() }
}
''',
    },
    target="src/pages.rs",
    instruction="paginate should use the catalogue's default page size when the client gives none, and never "
                "hand out more per page than the configured limit.",
    edit=[["//! Cutting result lists into pages.\n",
           "//! Cutting result lists into pages.\n\nuse crate::config::{DEFAULT_PER_PAGE, PER_PAGE_LIMIT};\n"],
          ["    let per_page = per_page.unwrap_or(20);\n",
           "    let per_page = per_page.unwrap_or(DEFAULT_PER_PAGE).min(PER_PAGE_LIMIT);\n"]],
    test=r'''use catalog::pages::paginate;

#[test]
fn page_sizes_follow_the_config() {
    let items: Vec<u32> = (1..=500).collect();
    let p = paginate(&items, 1, None);
    assert_eq!(p.per_page, 24);
    assert_eq!(p.items.len(), 24);
    let p = paginate(&items, 2, Some(1000));
    assert_eq!(p.per_page, 96);
    assert_eq!(p.items.first(), Some(&97));
    let p = paginate(&items, 3, Some(10));
    assert_eq!(p.items, (21..=30).collect::<Vec<u32>>());
    assert_eq!(p.total, 500);
}
''',
)

# ---------------------------------------------------------------- a size parser that returns bytes

rust(
    id="rust-upload-limit-size-units",
    files={
        "Cargo.toml": cargo("uploads"),
        "src/lib.rs": r'''//! Upload handling for the file-sharing site.

pub mod size;
pub mod upload;
''',
        "src/size.rs": r'''//! Human-readable byte sizes from config files.

use std::fmt;

/// A size that could not be read; holds the text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeError(pub String);

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a size: {:?}", self.0)
    }
}

/// Reads "512", "64KiB", "10MiB" or "2GiB" (binary units, any case) as a number of bytes.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| SizeError(text.to_string()))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => return Err(SizeError(text.to_string())),
    };
    n.checked_mul(factor).ok_or_else(|| SizeError(text.to_string()))
}
''',
        "src/upload.rs": r'''//! Limits on what users may upload.

/// The limit used when the setting is missing or unreadable, in KiB.
const FALLBACK_KIB: u64 = 1024;

/// Upload rules for one site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadPolicy {
    max_kib: u64,
}

impl UploadPolicy {
    /// From the `upload.max_size` setting, a number of KiB.
    pub fn from_setting(value: &str) -> Self {
        let max_kib = value.trim().parse().unwrap_or(FALLBACK_KIB);
        UploadPolicy { max_kib }
    }

    /// The largest upload allowed, in KiB.
    pub fn max_kib(&self) -> u64 {
        self.max_kib
    }

    /// Whether a file of `len` bytes may be uploaded.
    pub fn allows(&self, len: u64) -> bool {
        len <= self.max_kib * 1024
    }
}
''',
    },
    target="src/upload.rs",
    instruction="Let the upload size setting be written like '10MiB' or '512KiB' by reading it with parse_size. "
                "max_kib stays in KiB, and unreadable values still fall back to the default.",
    edit=[["//! Limits on what users may upload.\n",
           "//! Limits on what users may upload.\n\nuse crate::size::parse_size;\n"],
          ["        let max_kib = value.trim().parse().unwrap_or(FALLBACK_KIB);\n",
           "        let max_kib = parse_size(value).map(|bytes| bytes / 1024).unwrap_or(FALLBACK_KIB);\n"]],
    test=r'''use uploads::upload::UploadPolicy;

#[test]
fn sizes_with_units() {
    let p = UploadPolicy::from_setting("10MiB");
    assert_eq!(p.max_kib(), 10 * 1024);
    assert!(p.allows(10 * 1024 * 1024));
    assert!(!p.allows(10 * 1024 * 1024 + 1));
    assert_eq!(UploadPolicy::from_setting(" 512KiB ").max_kib(), 512);
    assert_eq!(UploadPolicy::from_setting("2gib").max_kib(), 2 * 1024 * 1024);
    assert_eq!(UploadPolicy::from_setting("lots").max_kib(), 1024);
}
''',
)

# ---------------------------------------------------------------- the level enum's own lenient parser

rust(
    id="rust-log-filter-level-parse",
    files={
        "Cargo.toml": cargo("logfilter"),
        "src/lib.rs": r'''//! Log filtering for the daemon, configured from the LOG environment variable.

pub mod filter;
pub mod level;
''',
        "src/level.rs": r'''//! Log severities.

/// How serious a log record is; later variants are more severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Trace,
    Debug,
    Info,
    Warning,
    Error,
    Fatal,
}

impl Severity {
    /// Reads a level the way people write it in environment variables: any case, and the usual
    /// short forms ("warn", "err", "crit") as well. None for anything else.
    pub fn parse_loose(name: &str) -> Option<Severity> {
        match name.trim().to_ascii_lowercase().as_str() {
            "trace" => Some(Severity::Trace),
            "debug" | "dbg" => Some(Severity::Debug),
            "info" => Some(Severity::Info),
            "warn" | "warning" => Some(Severity::Warning),
            "err" | "error" => Some(Severity::Error),
            "fatal" | "crit" | "critical" => Some(Severity::Fatal),
            _ => None,
        }
    }
}
''',
        "src/filter.rs": r'''//! Which records reach the output, from a spec like "info" or "db=debug".

use crate::level::Severity;

/// A minimum severity, optionally only for targets starting with a prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub target: Option<String>,
    pub min: Severity,
}

impl Filter {
    /// Parses "LEVEL" or "TARGET=LEVEL". An unknown level falls back to Info.
    pub fn parse(spec: &str) -> Filter {
        let (target, level) = match spec.split_once('=') {
            Some((t, l)) => (Some(t.trim().to_string()), l.trim()),
            None => (None, spec.trim()),
        };
        let min = match level {
            "debug" => Severity::Debug,
            "trace" => Severity::Trace,
            _ => Severity::Info,
        };
        Filter { target, min }
    }

    /// Whether a record from `target` at `severity` passes.
    pub fn enabled(&self, target: &str, severity: Severity) -> bool {
        let target_ok = self.target.as_deref().map_or(true, |t| target.starts_with(t));
        target_ok && severity >= self.min
    }
}
''',
    },
    target="src/filter.rs",
    instruction="Filter::parse only understands 'debug' and 'trace'. Read the level with Severity::parse_loose so "
                "'WARN' or 'err' work too, still falling back to Info.",
    edit=[["""        let min = match level {
            "debug" => Severity::Debug,
            "trace" => Severity::Trace,
            _ => Severity::Info,
        };
""", "        let min = Severity::parse_loose(level).unwrap_or(Severity::Info);\n"]],
    test=r'''use logfilter::filter::Filter;
use logfilter::level::Severity;

#[test]
fn levels_are_read_leniently() {
    let f = Filter::parse("db=WARN");
    assert_eq!(f.target.as_deref(), Some("db"));
    assert_eq!(f.min, Severity::Warning);
    assert!(!f.enabled("db::pool", Severity::Info));
    assert!(f.enabled("db::pool", Severity::Error));
    assert_eq!(Filter::parse("err").min, Severity::Error);
    assert_eq!(Filter::parse("Debug").min, Severity::Debug);
    assert_eq!(Filter::parse("bogus").min, Severity::Info);
}
''',
)

# ---------------------------------------------------------------- a text helper with (s, marker, width)

rust(
    id="rust-table-title-ellipsis",
    files={
        "Cargo.toml": cargo("booklist"),
        "src/lib.rs": r'''//! The reading-list tool's terminal output.

pub mod table;
pub mod text;
''',
        "src/text.rs": r'''//! Text helpers for the terminal UI. Widths are counted in chars, never bytes.

/// Shortens `s` to at most `width` chars, ending it with `marker` when something was cut; the
/// marker counts toward the width. Strings that fit come back unchanged.
pub fn ellipsize(s: &str, marker: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let keep = width.saturating_sub(marker.chars().count());
    let mut out: String = s.chars().take(keep).collect();
    out.push_str(marker);
    out
}

/// Pads `s` with spaces on the right to `width` chars.
pub fn pad_right(s: &str, width: usize) -> String {
    let n = s.chars().count();
    let mut out = s.to_string();
    out.extend(std::iter::repeat(' ').take(width.saturating_sub(n)));
    out
}
''',
        "src/table.rs": r'''//! The reading list as an aligned text table.

use crate::text::pad_right;

/// Width of the title column, in chars.
pub const TITLE_WIDTH: usize = 24;

pub struct Book {
    pub title: String,
    pub author: String,
    pub year: u16,
}

/// The title cell: always exactly TITLE_WIDTH chars wide.
pub fn title_cell(title: &str) -> String {
    let short = if title.len() > TITLE_WIDTH { &title[..TITLE_WIDTH] } else { title };
    pad_right(short, TITLE_WIDTH)
}

/// One row of the table.
pub fn row(book: &Book) -> String {
    format!("{} | {} | {}", title_cell(&book.title), book.author, book.year)
}
''',
    },
    target="src/table.rs",
    instruction="title_cell panics on long titles with accented letters. Shorten them with our ellipsis helper, "
                "ending in '…', and keep the cell padded to the column width.",
    edit=[["use crate::text::pad_right;\n", "use crate::text::{ellipsize, pad_right};\n"],
          ["""    let short = if title.len() > TITLE_WIDTH { &title[..TITLE_WIDTH] } else { title };
    pad_right(short, TITLE_WIDTH)
""", """    let short = ellipsize(title, "…", TITLE_WIDTH);
    pad_right(&short, TITLE_WIDTH)
"""]],
    test=r'''use booklist::table::{row, title_cell, Book, TITLE_WIDTH};

#[test]
fn long_titles_get_an_ellipsis() {
    let cell = title_cell("Crème brûlée: a history of custard");
    assert_eq!(cell, "Crème brûlée: a history…");
    assert_eq!(cell.chars().count(), TITLE_WIDTH);
    let plain = title_cell("The Dispossessed, by Ursula Le Guin");
    assert_eq!(plain, "The Dispossessed, by Ur…");
    let book = Book { title: "Dune".to_string(), author: "Herbert".to_string(), year: 1965 };
    assert_eq!(row(&book), format!("{:<24} | Herbert | 1965", "Dune"));
}
''',
)

# ---------------------------------------------------------------- a backoff with Durations and 1-based retries

rust(
    id="rust-retry-exponential-backoff",
    files={
        "Cargo.toml": cargo("httpretry"),
        "src/lib.rs": r'''//! Retry behaviour of the upstream HTTP client.

pub mod backoff;
pub mod client;
''',
        "src/backoff.rs": r'''//! Exponential backoff between retries.

use std::time::Duration;

/// Doubling waits, never longer than a ceiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    ceiling: Duration,
}

impl Backoff {
    /// `first` is the wait before the first retry; no wait is ever longer than `ceiling`.
    pub fn new(first: Duration, ceiling: Duration) -> Self {
        Backoff { first, ceiling }
    }

    /// The wait before retry number `retry`, counting from 1: first, 2 x first, 4 x first, ...
    /// up to the ceiling. Retry 0 is the original request, which does not wait.
    pub fn delay_before(&self, retry: u32) -> Duration {
        if retry == 0 {
            return Duration::ZERO;
        }
        let factor = 1u32.checked_shl(retry - 1).unwrap_or(u32::MAX);
        self.first.checked_mul(factor).unwrap_or(self.ceiling).min(self.ceiling)
    }
}
''',
        "src/client.rs": r'''//! The client's retry schedule for one upstream service.

use std::time::Duration;

/// Retry settings for one upstream service.
#[derive(Debug, Clone)]
pub struct RetryConfig {
    pub max_retries: u32,
}

impl RetryConfig {
    /// The waits before each retry, in order; empty when retries are off.
    pub fn schedule(&self) -> Vec<Duration> {
        (0..self.max_retries).map(|_| Duration::from_millis(250)).collect()
    }
}
''',
    },
    target="src/client.rs",
    instruction="Every retry waits a flat 250 ms. Use our exponential backoff instead, starting at 250 ms and "
                "never waiting more than 4 seconds.",
    edit=[["use std::time::Duration;\n", "use std::time::Duration;\n\nuse crate::backoff::Backoff;\n"],
          ["        (0..self.max_retries).map(|_| Duration::from_millis(250)).collect()\n",
           "        let backoff = Backoff::new(Duration::from_millis(250), Duration::from_secs(4));\n"
           "        (1..=self.max_retries).map(|retry| backoff.delay_before(retry)).collect()\n"]],
    test=r'''use std::time::Duration;

use httpretry::client::RetryConfig;

#[test]
fn waits_double_up_to_the_ceiling() {
    let ms = |v: &[u64]| v.iter().map(|&m| Duration::from_millis(m)).collect::<Vec<_>>();
    assert_eq!(RetryConfig { max_retries: 6 }.schedule(), ms(&[250, 500, 1000, 2000, 4000, 4000]));
    assert_eq!(RetryConfig { max_retries: 2 }.schedule(), ms(&[250, 500]));
    assert!(RetryConfig { max_retries: 0 }.schedule().is_empty());
    assert_eq!(RetryConfig { max_retries: 40 }.schedule().last(), Some(&Duration::from_secs(4)));
}
''',
)

# ---------------------------------------------------------------- a handler result enum's variant

rust(
    id="rust-event-bus-stop-propagation",
    files={
        "Cargo.toml": cargo("events"),
        "src/lib.rs": r'''//! The editor's event bus: plugins register handlers and see what happens.

pub mod bus;
pub mod event;
''',
        "src/event.rs": r'''//! Events and the handlers that react to them.

/// Something that happened in the editor.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Saved(String),
    Closed(String),
    KeyPress(char),
}

/// What a handler wants to happen after it has seen an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Let the next handler see the event too.
    Continue,
    /// The event has been dealt with; later handlers must not see it.
    Consumed,
}

/// Reacts to events.
pub trait Handler {
    fn on_event(&mut self, event: &Event) -> Propagation;
}
''',
        "src/bus.rs": r'''//! Delivers events to handlers in the order they were registered.

use crate::event::{Event, Handler};

#[derive(Default)]
pub struct Bus {
    handlers: Vec<Box<dyn Handler>>,
}

impl Bus {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(&mut self, handler: Box<dyn Handler>) {
        self.handlers.push(handler);
    }

    /// Sends `event` to the handlers and returns how many of them saw it.
    pub fn dispatch(&mut self, event: &Event) -> usize {
        let mut seen = 0;
        for handler in self.handlers.iter_mut() {
            handler.on_event(event);
            seen += 1;
        }
        seen
    }
}
''',
    },
    target="src/bus.rs",
    instruction="dispatch keeps going after a handler has dealt with the event. Stop at the first handler that "
                "returns Propagation::Consumed (it still counts as having seen it).",
    edit=[["use crate::event::{Event, Handler};\n", "use crate::event::{Event, Handler, Propagation};\n"],
          ["            handler.on_event(event);\n            seen += 1;\n",
           "            seen += 1;\n"
           "            if handler.on_event(event) == Propagation::Consumed {\n"
           "                break;\n"
           "            }\n"]],
    test=r'''use std::cell::RefCell;
use std::rc::Rc;

use events::bus::Bus;
use events::event::{Event, Handler, Propagation};

struct Recorder {
    name: &'static str,
    log: Rc<RefCell<Vec<&'static str>>>,
    eats_keys: bool,
}

impl Handler for Recorder {
    fn on_event(&mut self, event: &Event) -> Propagation {
        self.log.borrow_mut().push(self.name);
        match event {
            Event::KeyPress(_) if self.eats_keys => Propagation::Consumed,
            _ => Propagation::Continue,
        }
    }
}

#[test]
fn consumed_events_stop() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let mut bus = Bus::new();
    for (name, eats_keys) in [("status", false), ("vim", true), ("macro", false)] {
        bus.register(Box::new(Recorder { name, log: log.clone(), eats_keys }));
    }
    assert_eq!(bus.dispatch(&Event::KeyPress('x')), 2);
    assert_eq!(*log.borrow(), vec!["status", "vim"]);
    log.borrow_mut().clear();
    assert_eq!(bus.dispatch(&Event::Saved("a.txt".to_string())), 3);
    assert_eq!(*log.borrow(), vec!["status", "vim", "macro"]);
}
''',
)
