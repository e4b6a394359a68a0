# frozen_string_literal: true

require "bigdecimal"

module Bank
  class InsufficientFunds < StandardError; end

  # An account with a balance and a history.
  class Account
    attr_reader :owner, :balance

    def initialize(owner, balance = BigDecimal("0"))
      @owner = owner
      @balance = balance
      @history = []
    end

    def deposit(amount)
      raise ArgumentError, "amount must be positive" unless amount.positive?

      @balance += amount
      @history << [:deposit, amount]
      self
    end

    def withdraw(amount)
      if amount > @balance
        raise InsufficientFunds, "#{owner} has only #{@balance.to_s('F')}"
      end

      @balance -= amount
      @history << [:withdraw, amount]
      self
    end

    def statement
      @history.each_with_index.map do |(kind, amount), i|
        format("%<n>3d %<kind>-8s %<amount>10.2f", n: i + 1, kind: kind, amount: amount)
      end.join("\n")
    end

    def self.open(owner, &block)
      account = new(owner)
      block&.call(account)
      account
    end
  end
end

account = Bank::Account.open("ada") { |a| a.deposit(BigDecimal("10")) }
puts account.statement
