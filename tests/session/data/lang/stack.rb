# A stack of items.
module Collections
  class Stack
    def initialize
      @items = []
    end

    def push(x)
      @items.push(x)
      self
    end

    def empty?
      @items.empty?
    end
  end
end
