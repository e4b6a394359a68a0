package bank;

/** A bank account. */
public class Account {
    private long balance;

    public Account(long opening) {
        this.balance = opening;
    }

    @Override
    public String toString() {
        return "Account(" + balance + ")";
    }

    interface Listener {
        void changed(long balance);
    }
}
